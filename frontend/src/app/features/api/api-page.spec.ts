import { HttpTestingController } from '@angular/common/http/testing';
import { ComponentFixture } from '@angular/core/testing';

import { nextRequest, renderForTests, settle } from '@console/testing';
import { ApiPage } from './api-page';
import { OPENAPI_URL } from './openapi-api';
import { SWAGGER_UI_SCRIPT, SWAGGER_UI_STYLES } from './swagger-ui-loader';

/** A small OpenAPI 3.1 document: one read and one write. */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'Argus', version: '1' },
  components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
  security: [{ bearer: [] }],
  paths: {
    '/api/widgets': {
      get: {
        operationId: 'listWidgets',
        summary: 'List the widgets',
        responses: { '200': { description: 'The widgets' } },
      },
      post: { operationId: 'makeWidget', summary: 'Make a widget', responses: { '201': { description: 'Made' } } },
    },
  },
};

/** Waits (up to 10 s) until `found` answers: swagger-ui loads and draws outside Angular. */
async function until<T>(found: () => T | null | undefined): Promise<T> {
  for (let turn = 0; turn < 200; turn++) {
    const value = found();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('Timed out waiting for the page');
}

describe('ApiPage', () => {
  let fixture: ComponentFixture<ApiPage>;
  let http: HttpTestingController;

  beforeEach(async () => {
    ({ fixture, http } = renderForTests(ApiPage));
    await settle(fixture);
  });

  afterEach(() => http.verify());

  const page = (): HTMLElement => fixture.nativeElement;

  it('explains API tokens and Authorization: Bearer, and links the document for download', async () => {
    (await nextRequest(http, OPENAPI_URL)).flush(DOCUMENT);

    const accountLink = Array.from(page().querySelectorAll('a')).find((a) => a.textContent?.trim() === 'Account page');
    expect(accountLink?.getAttribute('href')).toBe('/account');
    expect(page().textContent).toContain('Authorization: Bearer argus_');
    const download = page().querySelector<HTMLAnchorElement>('[data-testid="download"]')!;
    expect(download.getAttribute('href')).toBe(OPENAPI_URL);
    expect(download.hasAttribute('download')).toBeTrue();
  });

  it("renders the server's document with swagger-ui, loaded from the console's own files, reading only", async () => {
    (await nextRequest(http, OPENAPI_URL)).flush(DOCUMENT);

    expect(document.head.querySelector(`script[src="${SWAGGER_UI_SCRIPT}"]`)).not.toBeNull();
    expect(document.head.querySelector(`link[rel="stylesheet"][href="${SWAGGER_UI_STYLES}"]`)).not.toBeNull();
    const reference = page().querySelector('[data-testid="reference"]')!;
    const operations = await until(() => {
      const found = reference.querySelectorAll('.swagger-ui .opblock');
      return found.length > 0 ? found : null;
    });
    expect(Array.from(operations, (op) => op.querySelector('.opblock-summary-path')?.textContent?.trim())).toEqual([
      '/api/widgets',
      '/api/widgets',
    ]);
    await settle(fixture);
    expect(page().querySelector('[role="status"]')).toBeNull();

    // expanded, an operation shows its responses but offers no "Try it out"
    reference.querySelector<HTMLElement>('.opblock-post .opblock-summary-control')!.click();
    await until(() => reference.querySelector('.opblock-post .responses-wrapper'));
    expect(reference.querySelector('.opblock-post')!.textContent).toContain('Made');
    expect(reference.querySelector('.try-out__btn')).toBeNull();
    // nor credentials to give it: no Authorize button, no padlocks
    expect(reference.querySelector('.btn.authorize, .authorization__btn')).toBeNull();
  });

  it('says so when the document cannot be fetched', async () => {
    (await nextRequest(http, OPENAPI_URL)).flush({ error: 'boom' }, { status: 503, statusText: 'Unavailable' });
    await until(() => page().querySelector('[role="alert"]'));

    expect(page().querySelector('[role="alert"]')!.textContent).toContain('could not be loaded');
    expect(page().querySelector('.swagger-ui')).toBeNull();
  });
});
