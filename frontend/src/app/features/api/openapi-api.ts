import { Injectable } from '@angular/core';

import { Resource } from '@console/core/resource';

/** Public: the server builds it from the same zod schemas its routes validate with (contracts/). */
export const OPENAPI_URL = '/api/openapi.json';

/** The API reference's one request: the OpenAPI document the reference is drawn from. */
@Injectable({ providedIn: 'root' })
export class OpenApiApi extends Resource<object> {
  constructor() {
    super(OPENAPI_URL);
  }
}
