import { ActivatedRouteSnapshot } from '@angular/router';

/** Route data of the sign-in pages: they render as a centred card, without the navigation. */
export const BARE_LAYOUT = { layout: 'bare' } as const;

/** True when the active route (or one of its ancestors) asks for the bare layout. */
export function isBareLayout(route: ActivatedRouteSnapshot): boolean {
  for (let r: ActivatedRouteSnapshot | null = route; r; r = r.firstChild) {
    if (r.data['layout'] === BARE_LAYOUT.layout) return true;
  }
  return false;
}
