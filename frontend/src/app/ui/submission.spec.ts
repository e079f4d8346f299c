import { HttpErrorResponse } from '@angular/common/http';
import { Component } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { FormControl, FormGroup } from '@angular/forms';
import { MatDialog, MatDialogRef, MatDialogState } from '@angular/material/dialog';
import { of, Subject, throwError } from 'rxjs';

import { provideForTests, turn } from '@console/testing';
import { DialogSubmission, Submission } from './submission';

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

/** A form dialog reduced to its submission. */
@Component({ template: '' })
class SavingDialog {
  readonly submission = new DialogSubmission<string>();
}

describe('DialogSubmission', () => {
  function open(): { ref: MatDialogRef<SavingDialog, string>; answers: (string | undefined)[] } {
    TestBed.configureTestingModule({ providers: provideForTests() });
    const ref = TestBed.inject(MatDialog).open<SavingDialog, unknown, string>(SavingDialog);
    const answers: (string | undefined)[] = [];
    ref.afterClosed().subscribe((answer) => answers.push(answer));
    return { ref, answers };
  }

  it('closes the dialog with what the server saved, busy until it has gone', async () => {
    const { ref, answers } = open();
    ref.componentInstance.submission.save(of('saved'));
    expect(ref.componentInstance.submission.busy()).toBeTrue();
    await turn();
    expect(answers).toEqual(['saved']);
  });

  it('closes without an answer when there is nothing to send', async () => {
    const { ref, answers } = open();
    ref.componentInstance.submission.save(null);
    await turn();
    expect(answers).toEqual([undefined]);
  });

  it('stays open on a refusal and shows it, after the dialog’s own handling declined it', async () => {
    const { ref, answers } = open();
    const declined: unknown[] = [];
    ref.componentInstance.submission.save(
      throwError(() => refusal(409, { error: 'The name is taken', code: 'conflict' })),
      (err) => void declined.push(err),
    );
    await turn();
    expect(answers).toEqual([]);
    expect(ref.getState()).toBe(MatDialogState.OPEN);
    expect(declined.length).toBe(1);
    expect(ref.componentInstance.submission.error()).toBe('The name is taken');
    expect(ref.componentInstance.submission.busy()).toBeFalse();
    ref.close();
  });
});
