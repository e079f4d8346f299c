import { inject, signal } from '@angular/core';
import { FormGroup } from '@angular/forms';
import { Observable } from 'rxjs';

import { Loaded, loaded, LOADING } from '@console/core/loaded';
import { Notify } from './notify';
import { Submission } from './submission';

/**
 * The form of a settings page over one document (alert retention, forecasts): read into the form by
 * `show` once loaded (`state` for `<argus-load-state>`), sent back by `save`, which shows what the
 * server kept and says so. Made in the page's field initializers.
 */
export class DocumentForm<T> {
  private readonly notify = inject(Notify);
  readonly state = signal<Loaded<T>>(LOADING);
  readonly submission: Submission;

  constructor(
    form: FormGroup,
    load: Observable<T>,
    private readonly show: (document: T) => void,
  ) {
    this.submission = new Submission(form);
    loaded(load).subscribe((state) => {
      if (state.state === 'ready') show(state.value);
      this.state.set(state);
    });
  }

  /** Sends `request()` once every field is valid (else marks them), then shows what was saved and says `done`. */
  save(request: () => Observable<T>, done: string): void {
    if (!this.submission.ready()) return;
    this.submission.run(request(), (saved) => {
      this.show(saved);
      this.notify.done(done);
    });
  }
}
