import { HttpTestingController } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { ActivatedRoute, convertToParamMap } from '@angular/router';

import { provideForTests, settle } from '@console/testing';
import { SsoButton } from './sso-button';
import { SSO_OPTIONS_URL } from './sso-options-api';

describe('SsoButton', () => {
  let http: HttpTestingController;
  afterEach(() => http?.verify());

  async function render(options: { enabled: boolean; name: string | null }, query: Record<string, string> = {}) {
    TestBed.configureTestingModule({
      providers: [
        ...provideForTests(),
        { provide: ActivatedRoute, useValue: { snapshot: { queryParamMap: convertToParamMap(query) } } },
      ],
    });
    http = TestBed.inject(HttpTestingController);
    const fixture = TestBed.createComponent(SsoButton);
    fixture.componentRef.setInput('returnUrl', '/systems?customer=2');
    http.expectOne(SSO_OPTIONS_URL).flush(options);
    await settle(fixture);
    return fixture.nativeElement as HTMLElement;
  }

  it('links to the provider with the return path when single sign-on is configured', async () => {
    const page = await render({ enabled: true, name: 'Contoso Entra ID' });
    const link = page.querySelector('a') as HTMLAnchorElement;
    expect(link.textContent?.trim()).toBe('Sign in with Contoso Entra ID');
    expect(link.getAttribute('href')).toBe('/api/auth/sso/start?returnTo=%2Fsystems%3Fcustomer%3D2');
  });

  it('shows nothing when it is not configured, and a refused sign-in as an alert', async () => {
    const page = await render({ enabled: false, name: null }, { ssoError: 'You are not in the group "ops"' });
    expect(page.querySelector('a')).toBeNull();
    expect(page.querySelector('[role="alert"]')?.textContent).toContain('You are not in the group "ops"');
  });
});
