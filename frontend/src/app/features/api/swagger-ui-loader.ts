import { DOCUMENT } from '@angular/common';
import { inject, Injectable } from '@angular/core';

/**
 * Where angular.json copies swagger-ui-dist's bundle and stylesheet. They are plain files the
 * console's own server serves (no CDN: the Content-Security-Policy allows 'self' only), and they
 * are fetched only when the API page opens, so the main bundle does not carry 1.7 MB of renderer.
 */
export const SWAGGER_UI_SCRIPT = '/vendor/swagger-ui/swagger-ui-bundle.js';
export const SWAGGER_UI_STYLES = '/vendor/swagger-ui/swagger-ui.css';

/** The part of swagger-ui's options the console uses (https://swagger.io/docs/open-source-tools/swagger-ui/usage/configuration/). */
export interface SwaggerUiOptions {
  domNode: HTMLElement;
  spec: object;
  layout: 'BaseLayout';
  deepLinking: boolean;
  /** Empty: no "Try it out" (see docs/decisions.md, "The API page"). */
  supportedSubmitMethods: string[];
  tryItOutEnabled: boolean;
  /** null: no badge fetched from validator.swagger.io. */
  validatorUrl: null;
  defaultModelsExpandDepth: number;
  plugins: (() => object)[];
  docExpansion: 'list' | 'none' | 'full';
}

/**
 * A swagger-ui plugin that draws neither the "Authorize" button nor the padlocks on operations:
 * they only set the credentials "Try it out" would send, and Try it out is off.
 */
export function withoutAuthorize(): object {
  const nothing = () => () => null;
  return { wrapComponents: { AuthorizeBtnContainer: nothing, authorizeOperationBtn: nothing } };
}

export type SwaggerUiBundle = (options: SwaggerUiOptions) => unknown;

interface WindowWithSwaggerUi {
  SwaggerUIBundle?: SwaggerUiBundle;
}

/** Adds swagger-ui's script and stylesheet to the page once, and hands over its entry point. */
@Injectable({ providedIn: 'root' })
export class SwaggerUiLoader {
  private readonly document = inject(DOCUMENT);
  private loading: Promise<SwaggerUiBundle> | null = null;

  load(): Promise<SwaggerUiBundle> {
    this.loading ??= this.addTags().catch((error: unknown) => {
      // a later visit tries again (the server may have been restarting)
      this.loading = null;
      throw error;
    });
    return this.loading;
  }

  private addTags(): Promise<SwaggerUiBundle> {
    const head = this.document.head;
    if (!head.querySelector(`link[href="${SWAGGER_UI_STYLES}"]`)) {
      const link = this.document.createElement('link');
      link.rel = 'stylesheet';
      link.href = SWAGGER_UI_STYLES;
      head.appendChild(link);
    }
    const loaded = (): SwaggerUiBundle | undefined =>
      (this.document.defaultView as WindowWithSwaggerUi | null)?.SwaggerUIBundle;
    const already = loaded();
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      head.querySelector(`script[src="${SWAGGER_UI_SCRIPT}"]`)?.remove();
      const script = this.document.createElement('script');
      script.src = SWAGGER_UI_SCRIPT;
      script.onload = () => {
        const bundle = loaded();
        if (bundle) resolve(bundle);
        else reject(new Error('swagger-ui loaded but did not define SwaggerUIBundle'));
      };
      script.onerror = () => reject(new Error(`Could not load ${SWAGGER_UI_SCRIPT}`));
      head.appendChild(script);
    });
  }
}
