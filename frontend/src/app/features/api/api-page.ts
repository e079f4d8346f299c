import { DOCUMENT } from '@angular/common';
import {
  afterNextRender,
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  inject,
  signal,
  viewChild,
  ViewEncapsulation,
} from '@angular/core';
import { MatButtonModule } from '@angular/material/button';
import { RouterLink } from '@angular/router';
import { firstValueFrom } from 'rxjs';

import { SwaggerUiLoader, withoutAuthorize } from './swagger-ui-loader';
import { OPENAPI_URL, OpenApiApi } from './openapi-api';
import { PageHeader } from '@console/ui/page-header';

/**
 * The API reference: how to authenticate a script, the document to download, and the document
 * itself rendered by swagger-ui (loaded only here). Reading only: "Try it out" is off, because
 * its requests would carry neither the session's CSRF header nor a token (docs/decisions.md).
 */
@Component({
  selector: 'argus-api-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  // swagger-ui draws its DOM with React, outside Angular's style scoping: the page's overrides
  // are global but every selector starts with .api-reference
  encapsulation: ViewEncapsulation.None,
  imports: [PageHeader, MatButtonModule, RouterLink],
  templateUrl: './api-page.html',
  styleUrl: './api-page.scss',
})
export class ApiPage {
  private readonly openApi = inject(OpenApiApi);
  private readonly loader = inject(SwaggerUiLoader);
  private readonly reference = viewChild.required<ElementRef<HTMLElement>>('reference');
  private destroyed = false;

  protected readonly openApiUrl = OPENAPI_URL;
  protected readonly origin = inject(DOCUMENT).location.origin;
  protected readonly state = signal<'loading' | 'ready' | 'error'>('loading');

  constructor() {
    inject(DestroyRef).onDestroy(() => (this.destroyed = true));
    afterNextRender(() => void this.render());
  }

  private async render(): Promise<void> {
    try {
      const [document, swaggerUi] = await Promise.all([firstValueFrom(this.openApi.get()), this.loader.load()]);
      if (this.destroyed) return;
      swaggerUi({
        domNode: this.reference().nativeElement,
        spec: document,
        layout: 'BaseLayout',
        deepLinking: false,
        supportedSubmitMethods: [],
        tryItOutEnabled: false,
        validatorUrl: null,
        defaultModelsExpandDepth: -1,
        docExpansion: 'list',
        plugins: [withoutAuthorize],
      });
      this.state.set('ready');
    } catch {
      // the download link above still works; a failed script load says nothing useful to show
      this.state.set('error');
    }
  }
}
