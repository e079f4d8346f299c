import { HttpErrorResponse } from '@angular/common/http';
import { FormControl, FormGroup } from '@angular/forms';
import { of, Subject, throwError } from 'rxjs';

import { Submission } from './submission';

function refusal(status: number, body: object): HttpErrorResponse {
  return new HttpErrorResponse({ status, error: body });
}

describe('Submission', () => {
  const form = () => new FormGroup({ email: new FormControl('', { nonNullable: true }) });

  it('is busy while the request runs and hands the answer on', () => {
    const answer = new Subject<string>();
    const submission = new Submission();
    const seen: string[] = [];
    submission.run(answer, (value) => seen.push(value));
    expect(submission.busy()).toBeTrue();
    answer.next('saved');
    expect(submission.busy()).toBeFalse();
    expect(seen).toEqual(['saved']);
  });

  it('stays busy after success when the form leaves', () => {
    const submission = new Submission();
    submission.run(of(1), () => undefined, { leaves: true });
    expect(submission.busy()).toBeTrue();
  });

  it('puts a refusal that names a field under that field, not on the error line', () => {
    const group = form();
    const submission = new Submission(group);
    const err = refusal(400, {
      error: 'email: must be an e-mail address',
      code: 'invalid',
      details: { field: 'email' },
    });
    submission.run(
      throwError(() => err),
      () => undefined,
    );
    expect(group.controls.email.getError('server')).toBe('Must be an e-mail address');
    expect(submission.error()).toBeNull();
    expect(submission.busy()).toBeFalse();
  });

  it('shows any other refusal on the error line in the server’s words', () => {
    const submission = new Submission(form());
    submission.run(
      throwError(() => refusal(409, { error: 'The address is taken', code: 'conflict' })),
      () => undefined,
    );
    expect(submission.error()).toBe('The address is taken');
  });

  it('leaves the refusal to the form when its own handling says it showed it', () => {
    const submission = new Submission();
    submission.run(
      throwError(() => refusal(409, { error: 'Expired' })),
      () => undefined,
      { refused: () => true },
    );
    expect(submission.error()).toBeNull();
  });

  it('refuses to send an invalid form and marks its fields touched', () => {
    const group = new FormGroup({
      name: new FormControl('', { validators: (c) => (c.value ? null : { required: true }) }),
    });
    const submission = new Submission(group);
    expect(submission.ready()).toBeFalse();
    expect(group.controls.name.touched).toBeTrue();
    group.controls.name.setValue('web-01');
    expect(submission.ready()).toBeTrue();
  });
});
