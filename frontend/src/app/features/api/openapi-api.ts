import { HttpClient } from '@angular/common/http';
import { Injectable, inject } from '@angular/core';
import { Observable } from 'rxjs';

/** Public: the server builds it from the same zod schemas its routes validate with (contracts/). */
export const OPENAPI_URL = '/api/openapi.json';

/** The API reference's one request: the OpenAPI document the reference is drawn from. */
@Injectable({ providedIn: 'root' })
export class OpenApiApi {
  private readonly http = inject(HttpClient);

  document(): Observable<object> {
    return this.http.get<object>(OPENAPI_URL);
  }
}
