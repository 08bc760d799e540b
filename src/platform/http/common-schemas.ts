import { type TSchema, Type } from 'typebox';

/** A numeric id in a path (`/{id}`): 1 to 16 digits, no leading zero. */
export const IdParam = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) });

/** The body of a 204. */
export const NoContent = Type.Null({ description: 'No content' });

/** A page of a list: its items, newest first or as the route says, and the next page's cursor (null: the last). */
export function ListPage<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) });
}

/** A list's query: how many (`limit`), and after which page (`cursor`, the previous page's nextCursor). */
export const PageParams = {
  limit: Type.Optional(Type.String({ description: '1..100, default 20' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
};
