/** The success envelope of the contract: `{data, meta?}`. */
export interface Envelope<T, M = undefined> {
  data: T;
  meta?: M;
}

export function envelope<T>(data: T): Envelope<T>;
export function envelope<T, M>(data: T, meta: M): Envelope<T, M>;
export function envelope<T, M>(data: T, meta?: M): Envelope<T, M> {
  return meta === undefined ? { data } : { data, meta };
}
