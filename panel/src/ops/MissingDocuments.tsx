import { label } from '../ui/labels';
import { DOCUMENT_KIND } from './labels';

/**
 * An approval's warning: the onboarding documents the account has not sent (the console decides; approving
 * without them is the operator's call, made knowingly).
 */
export function MissingDocuments({ missing }: { missing: string[] }) {
  if (missing.length === 0) return null;
  return (
    <p class="error" role="alert">
      Faltam documentos do cadastro: {missing.map((k) => label(DOCUMENT_KIND, k)).join(', ')}. Aprove só se
      você conferiu a conta de outra forma.
    </p>
  );
}
