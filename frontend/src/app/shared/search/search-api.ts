import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import { Observable } from 'rxjs';

import type { SearchResults } from '@contracts/search';

export type { SearchResults };

export const SEARCH_URL = '/api/search';

/** The quick search: names containing the term, within what the account may see (8 of each kind). */
@Injectable({ providedIn: 'root' })
export class SearchApi {
  private readonly http = inject(HttpClient);

  search(term: string): Observable<SearchResults> {
    return this.http.get<SearchResults>(SEARCH_URL, { params: { q: term } });
  }
}
