import { checkPassword, clearAttempts, hashPassword, matchingStep, newTotpSecret } from '../auth/index.js';
import { type MailOutbox, queueMail, renderMail } from '../mail/index.js';
import { seal, unseal } from '../platform/crypto/sealed.js';
import { hashSecret, newToken, type PlainSecret } from '../platform/crypto/secrets.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, conflict, validation } from '../platform/errors/app-error.js';
import { isEmailAddress } from '../platform/net/email.js';
import { type OperatorActor, recordOperatorAudit } from './audit.js';
import { consumeOperatorStep, type OperatorRow, type OperatorView, operatorView } from './data.js';
import { OPERATOR_ROLE_LABELS, type OperatorRole } from './roles.js';
import { attemptKey } from './sessions.js';
import { expireInvitations, lockInTurn, refusalsAudited, takeTurn } from './staff.js';

export const INVITATION_HOURS = 72;

export interface Invited {
  operator: OperatorView;
  /** The one-time link, e-mailed to the operator; printed by the CLI (the first operator's door), never answered by the console's API. */
  invitationUrl: string;
}

const invalidToken = () =>
  new AppError(
    'INVALID_TOKEN',
    'This invitation is invalid, was already used or has expired; ask for a new one',
  );

/**
 * Operators' invitations and their enrolment: an invited operator sets a password (accept-invitation answers
 * a new TOTP secret), then proves the authenticator with a code (totp/enable); only then may they log in.
 */
export class OperatorInvitations {
  constructor(
    private readonly db: Db,
    /** null: the invitations are not e-mailed (an operator command before any gateway published its key). */
    private readonly mail: MailOutbox | null,
    private readonly secretsKey: Buffer,
    private readonly publicUrl: string,
  ) {}

  async invite(emailRaw: string, role: OperatorRole, actor: OperatorActor): Promise<Invited> {
    const email = emailRaw.trim().toLowerCase();
    if (!isEmailAddress(email)) throw validation('email must be an e-mail address');
    return this.db.tx(async (tx) => {
      const [row] = await tx.query<OperatorRow>(
        `INSERT INTO operators (email, role, invited_by) VALUES ($1, $2, $3)
         ON CONFLICT (email) DO NOTHING RETURNING *`,
        [email, role, actor.id],
      );
      if (!row) throw new AppError('EMAIL_TAKEN', `${email} is already an operator`);
      const invitationUrl = await this.issue(tx, row, actor);
      await recordOperatorAudit(tx, actor, {
        action: 'operator.invited',
        target: `operator:${row.id}`,
        after: { email, role },
      });
      return { operator: operatorView(row), invitationUrl };
    });
  }

  /**
   * A fresh invitation for an operator who has not finished enrolling (invited, or password set but the
   * authenticator not confirmed), or who was disabled and comes back: every earlier link stops working,
   * enrolment starts over, and the new link is e-mailed to the operator only. Audited.
   */
  async resend(operatorId: number, actor: OperatorActor): Promise<OperatorView> {
    return refusalsAudited(this.db, operatorId, actor, async (tx) => {
      // in turn with the other changes of operators (a disable), and the invitations before the operator, as an
      // enrolment takes them: never a deadlock with either; the one asking still an active admin in their turn
      await takeTurn(tx);
      await expireInvitations(tx, operatorId);
      const row = await lockInTurn(tx, operatorId, actor, null);
      if (row.status === 'active') {
        throw conflict(`${row.email} has already enrolled: there is no invitation to resend`);
      }
      const [fresh] = await tx.query<OperatorRow>(
        // a disabled operator invited again enrols from the start, as a new one (their first login included)
        `UPDATE operators SET status = 'invited', password_hash = NULL, totp_pending_enc = NULL,
                last_login_at = CASE WHEN status = 'disabled' THEN NULL ELSE last_login_at END
          WHERE id = $1 RETURNING *`,
        [row.id],
      );
      await this.issue(tx, fresh!, actor);
      await recordOperatorAudit(tx, actor, {
        action: 'operator.invitation_resent',
        target: `operator:${row.id}`,
        before: { status: row.status },
        after: { email: row.email, role: row.role },
      });
      return operatorView(fresh!);
    });
  }

  /**
   * A new one-time link for the operator, e-mailed to them; answered only to the caller (the CLI prints it). Who
   * sent it is kept: disabling them ends it (OperatorStaff.disable).
   */
  private async issue(tx: Queryable, operator: OperatorRow, sender: OperatorActor): Promise<string> {
    const token = newToken('', 32);
    await tx.query(
      `INSERT INTO operator_invitations (token_hash, operator_id, expires_at, sent_by)
       VALUES ($1, $2, now() + make_interval(hours => $3), $4)`,
      [hashSecret(token), operator.id, INVITATION_HOURS, sender.id],
    );
    const invitationUrl = `${this.publicUrl}/ops#/convite/${token}`;
    if (!this.mail) return invitationUrl;
    await queueMail(tx, this.mail, {
      cause: `operator-invitation:${hashSecret(token)}`,
      to: operator.email,
      ...invitationMail(operator.role, invitationUrl),
    });
    return invitationUrl;
  }

  /** Sets the password and answers a new TOTP secret to enrol; the link then only confirms the code. */
  async accept(token: string, password: string): Promise<{ totpSecret: string; otpauthUrl: string }> {
    checkPassword(password);
    const hash = await hashPassword(password);
    return this.db.tx(async (tx) => {
      const operator = await this.spend(tx, token, 'accept');
      const { secret, otpauthUrl } = newTotpSecret(operator.email);
      await tx.query(
        `UPDATE operators SET password_hash = $2, totp_pending_enc = $3, status = 'enrolling' WHERE id = $1`,
        [operator.id, hash, seal(this.secretsKey, secret)],
      );
      // a new password ends a lock of the old one's failures (an operator disabled and invited again)
      await clearAttempts(tx, attemptKey(operator.email));
      return { totpSecret: secret, otpauthUrl };
    });
  }

  /** The first code of the authenticator: the operator becomes active and may log in. */
  async enableTotp(
    token: string,
    code: string,
    origin: { ip: string | null; userAgent: string | null },
  ): Promise<void> {
    await this.db.tx(async (tx) => {
      const operator = await this.spend(tx, token, 'enrol');
      const pending = operator.totp_pending_enc ? unseal(this.secretsKey, operator.totp_pending_enc) : null;
      const step = pending ? matchingStep(pending, code) : null;
      if (step === null || !(await consumeOperatorStep(tx, operator.id, step))) {
        throw validation('The code does not match; check the authenticator app and the device clock');
      }
      await tx.query(
        `UPDATE operators SET totp_secret_enc = totp_pending_enc, totp_pending_enc = NULL, status = 'active'
          WHERE id = $1`,
        [operator.id],
      );
      await recordOperatorAudit(
        tx,
        { id: operator.id, email: operator.email, ...origin },
        { action: 'operator.enrolled', target: `operator:${operator.id}` },
      );
    });
  }

  /**
   * The invitation's operator, its row locked, with the step marked done: `accept` once (password), then
   * `enrol` once (the TOTP code). A wrong code leaves the enrolment open (the transaction rolls back).
   */
  private async spend(
    tx: Queryable,
    token: PlainSecret | string,
    step: 'accept' | 'enrol',
  ): Promise<OperatorRow> {
    const [row] = await tx.query<OperatorRow>(
      `WITH spent AS (
         UPDATE operator_invitations
            SET ${step === 'accept' ? 'accepted_at' : 'enrolled_at'} = now()
          WHERE token_hash = $1 AND expires_at > now() AND enrolled_at IS NULL
            AND ${step === 'accept' ? 'accepted_at IS NULL' : 'accepted_at IS NOT NULL'}
         RETURNING operator_id)
       SELECT o.* FROM operators o JOIN spent ON spent.operator_id = o.id FOR UPDATE OF o`,
      [hashSecret(token)],
    );
    if (!row || row.status === 'disabled') throw invalidToken();
    return row;
  }
}

function invitationMail(role: OperatorRole, url: string) {
  return renderMail({
    subject: 'Convite para o console de operação do gateway',
    paragraphs: [
      'Olá!',
      `Você foi convidado para o console de operação do gateway, com o papel ${OPERATOR_ROLE_LABELS[role]}.`,
      'Para aceitar, abra o link abaixo, escolha sua senha e cadastre o aplicativo autenticador (obrigatório).',
    ],
    action: { label: 'Aceitar convite', url },
    footnote: `O link vale por ${INVITATION_HOURS} horas e só pode ser usado uma vez. Se você não esperava este convite, ignore este e-mail.`,
  });
}
