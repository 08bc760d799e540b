import { validation } from '../platform/errors/app-error.js';
import { type PublicId, parsePublicId } from '../platform/ids/public-ids.js';

/** `{id}` in every sandbox route: the uuid or the numeric id; anything else → 400. */
export function sandboxId(raw: string): PublicId {
  const id = parsePublicId(raw);
  if (!id) throw validation('id must be a uuid or a numeric id');
  return id;
}
