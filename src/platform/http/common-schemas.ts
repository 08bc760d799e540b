import { Type } from 'typebox';

/** A numeric id in a path (`/{id}`): 1 to 16 digits, no leading zero. */
export const IdParam = Type.Object({ id: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) });

/** The body of a 204. */
export const NoContent = Type.Null({ description: 'No content' });
