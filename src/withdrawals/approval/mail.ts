import { activeUsersWithRole, credentialName, rolesWith } from '../../auth/index.js';
import { type MailOutbox, queueMail, renderMail } from '../../mail/index.js';
import type { Db, Queryable } from '../../platform/db/db.js';
import { formatBrl } from '../../platform/money/money.js';
import { maskDocument } from '../../platform/privacy/mask.js';
import { greeting, nameForMail } from '../../platform/text/names.js';
import type { WithdrawalRow } from '../data.js';
import { APPROVAL_HOURS, keyCreatorOf } from './decide.js';

/** "por ana@loja.com", or, for an API key, "pela integração (chave de API "ERP")" by the key's name. */
async function requesterInWords(q: Queryable, requestedBy: string | null): Promise<string> {
  const publicKey = requestedBy?.startsWith('api_key:') ? requestedBy.slice('api_key:'.length) : null;
  if (publicKey === null) return `por ${requestedBy ?? 'alguém da equipe'}`;
  const name = nameForMail(await credentialName(q, publicKey), '');
  return name ? `pela integração (chave de API "${name}")` : 'pela integração (uma chave de API)';
}

/**
 * "Saque aguardando aprovação" to every active user who may approve the withdrawal: never the one who asked,
 * nor the creator of the API key that asked (who may decline it, not approve it); one message per withdrawal
 * and user however often the job runs.
 */
export async function mailApprovers(db: Db, outbox: MailOutbox, publicUrl: string, withdrawalIds: number[]) {
  await db.tx(async (tx) => {
    const rows = await tx.query<WithdrawalRow>(
      "SELECT * FROM withdrawals WHERE id = ANY($1::bigint[]) AND approval_status = 'awaiting'",
      [withdrawalIds],
    );
    for (const w of rows) {
      const requester = await requesterInWords(tx, w.approval_requested_by);
      const pixKey =
        w.pix_key_type === 'CPF' || w.pix_key_type === 'CNPJ' ? maskDocument(w.pix_key) : w.pix_key;
      const approvers = await activeUsersWithRole(tx, w.account_id, rolesWith('withdrawals.create'));
      const keyCreator = await keyCreatorOf(tx, w.approval_requested_by);
      for (const user of approvers) {
        if (user.email === w.approval_requested_by || user.email === keyCreator) continue;
        await queueMail(tx, outbox, {
          cause: `approval:${w.uuid}`,
          to: user.email,
          ...renderMail({
            subject: `Saque de ${formatBrl(w.amount)} aguardando aprovação`,
            paragraphs: [
              greeting(user.name),
              `Um saque de ${formatBrl(w.amount)} para a chave Pix ${pixKey} foi pedido ${requester} e aguarda a aprovação de outra pessoa da equipe.`,
              'O valor fica bloqueado até a decisão. Para aprovar ou recusar, abra o painel e confirme com sua senha ou código de dois fatores.',
            ],
            action: { label: 'Ver saques aguardando aprovação', url: `${publicUrl}/#/saques/aprovacoes` },
            footnote: `Sem decisão em ${APPROVAL_HOURS} horas, o saque é recusado e o valor volta ao saldo disponível.`,
          }),
        });
      }
    }
  });
}
