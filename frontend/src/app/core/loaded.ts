import { catchError, map, Observable, of } from 'rxjs';

import { errorMessage } from './api-error';

/** A list or record fetched from the API, as a page shows it. */
export type Loaded<T> = { state: 'loading' } | { state: 'ready'; value: T } | { state: 'error'; message: string };

export const LOADING: Loaded<never> = { state: 'loading' };

/** The value once there is one; null while loading or failed. */
export function readyValue<T>(loaded: Loaded<T>): T | null {
  return loaded.state === 'ready' ? loaded.value : null;
}

/**
 * Turns a request into states; a failure becomes a state to show, not an error that ends the stream.
 * No 'loading' is emitted here: a page starts in LOADING and keeps its old rows while a reload runs.
 */
export function loaded<T>(source: Observable<T>): Observable<Loaded<T>> {
  return source.pipe(
    map((value): Loaded<T> => ({ state: 'ready', value })),
    catchError((err: unknown) => of<Loaded<T>>({ state: 'error', message: errorMessage(err) })),
  );
}
