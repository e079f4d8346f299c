/** The route declaration's own rules, checked when the app is built rather than on a request. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { idParam, mountRoutes, routeOf, successStatusOf } from './route.js';

const route = routeOf<null>();

describe('route declarations', () => {
  it('refuse to mount a path whose params are not declared, or declared but not in the path', () => {
    const undeclared = route({
      method: 'get',
      path: '/api/things/:id',
      tag: 'Things',
      access: 'signed-in',
      summary: 'One thing',
      responses: { 200: { description: 'The thing' } },
      handler: () => ({}),
    });
    assert.throws(() => mountRoutes([undeclared], null), /get \/api\/things\/:id declares params \[\]/);
    const extra = route({ ...undeclared, path: '/api/things', params: { id: idParam('thing') } });
    assert.throws(() => mountRoutes([extra], null), /declares params \[id\]/);
    assert.equal(mountRoutes([{ ...undeclared, params: { id: idParam('thing') } }], null).stack.length, 1);
  });

  it('answer with the lowest success status they document, and refuse one that documents none', () => {
    const doc = { method: 'post', path: '/api/things' } as const;
    assert.equal(
      successStatusOf({ ...doc, responses: { 409: { description: 'Taken' }, 201: { description: 'Made' } } }),
      201,
    );
    assert.equal(successStatusOf({ ...doc, responses: { 204: { description: 'Gone' } } }), 204);
    assert.throws(() => successStatusOf({ ...doc, responses: { 400: { description: 'No' } } }), /no successful answer/);
  });
});
