import { provideHttpClient } from '@angular/common/http';
import { provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { Title } from '@angular/platform-browser';
import { provideRouter, TitleStrategy } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';

import { routes } from './app.routes';
import { ArgusTitleStrategy } from './core/title-strategy';
import { NotFoundPage } from './features/not-found/not-found-page';
import { StatusPage } from './features/status/status-page';

describe('routes', () => {
  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [
        provideRouter(routes),
        provideHttpClient(),
        provideHttpClientTesting(),
        { provide: TitleStrategy, useClass: ArgusTitleStrategy },
      ],
    });
  });

  it('opens the status page at the root', async () => {
    const harness = await RouterTestingHarness.create();

    expect(await harness.navigateByUrl('/')).toBeInstanceOf(StatusPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Status · Argus');
  });

  it('shows the not-found page for an unknown address', async () => {
    const harness = await RouterTestingHarness.create();

    expect(await harness.navigateByUrl('/no/such/page')).toBeInstanceOf(NotFoundPage);
    expect(TestBed.inject(Title).getTitle()).toBe('Page not found · Argus');
  });
});
