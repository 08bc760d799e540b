import { rolesWith } from '../../auth/roles.js';
import { activeUsersWithRole } from '../../auth/users/data.js';
import { renderMail } from '../../mail/layout.js';
import { queueMail } from '../../mail/outbox.js';
import type { Db } from '../../platform/db/db.js';
import type { Queue } from '../../platform/jobs/queue.js';
import { formatBrl } from '../../platform/money/money.js';
import type { WithdrawalRow } from '../data.js';
import { APPROVAL_HOURS } from './decide.js';

/**
 * "Saque aguardando aprovação" to every active user who may approve the withdrawal (never the one who asked),
 * one message per withdrawal and user however often the job runs.
 */
export async function mailApprovers(db: Db, queue: Queue, publicUrl: string, withdrawalIds: number[]) {
  await db.tx(async (tx) => {
    const rows = await tx.query<WithdrawalRow>(
      "SELECT * FROM withdrawals WHERE id = ANY($1::bigint[]) AND approval_status = 'awaiting'",
      [withdrawalIds],
    );
    for (const w of rows) {
      const approvers = await activeUsersWithRole(tx, w.account_id, rolesWith('withdrawals.create'));
      for (const user of approvers) {
        if (user.email === w.approval_requested_by) continue;
        await queueMail(tx, queue, {
          cause: `approval:${w.uuid}`,
          to: user.email,
          ...renderMail({
            subject: `Saque de ${formatBrl(w.amount)} aguardando aprovação`,
            paragraphs: [
              `Olá, ${user.name}.`,
              `Um saque de ${formatBrl(w.amount)} para a chave Pix ${w.pix_key} foi pedido por ${w.approval_requested_by} e aguarda a aprovação de outra pessoa da equipe.`,
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
