import { HttpClient } from '@angular/common/http';
import { inject } from '@angular/core';
import { Observable } from 'rxjs';

/**
 * What the data service of one document the API serves at one URL is made of (the OpenAPI document,
 * the sign-in's single sign-on options): reading it. A service extends it with its URL.
 */
export abstract class Resource<T> {
  protected readonly http = inject(HttpClient);

  protected constructor(protected readonly url: string) {}

  get(): Observable<T> {
    return this.http.get<T>(this.url);
  }
}

/** A document the console also writes whole (`PUT url`), such as a page of settings; answered with what was stored. */
export abstract class EditableResource<T, Update = T> extends Resource<T> {
  save(update: Update): Observable<T> {
    return this.http.put<T>(this.url, update);
  }
}
