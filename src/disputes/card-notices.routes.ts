import { Type } from 'typebox';
import { constantTimeEqual, hashSecret } from '../platform/crypto/secrets.js';
import type { Db } from '../platform/db/db.js';
import { notFound, unauthorized } from '../platform/errors/app-error.js';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import type { Http } from '../platform/http/types.js';
import type { Queue } from '../platform/jobs/queue.js';
import {
  type ChargebackSource,
  CIELO_CHARGEBACK_CHANGE_TYPE,
  openNotifiedChargeback,
} from './card-notices.js';
import type { Disputes } from './disputes.js';

/** The header Cielo is asked to send with its notification POST when CIELO_NOTIFICATION_SECRET is set. */
export const CIELO_SECRET_HEADER = 'x-notification-secret';

// Cielo's notification is `{RecurrentPaymentId?, PaymentId, ChangeType}`, ChangeType a number (older examples
// quote it): nothing else is read, and nothing in it is believed but which payment to read back.
const NoticeBody = Type.Object({
  PaymentId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9A-Za-z-]+$' }),
  ChangeType: Type.Union([
    Type.Integer({ minimum: 0, maximum: 999 }),
    Type.String({ pattern: '^[0-9]{1,3}$' }),
  ]),
  RecurrentPaymentId: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
});
const Received = Type.Object({ received: Type.Boolean() });
/** Read-backs one process runs at once; more wait in the job queue. */
const MAX_READ_BACKS = 16;

export interface CardNoticeDeps {
  db: Db;
  queue: Queue;
  disputes: Disputes;
  /** Null when CARD_ACQUIRER is not cielo: the route then answers 404. */
  source: ChargebackSource | null;
  secret: string | null;
}

/**
 * POST /api/providers/cielo/notifications: Cielo's notification POST ("Post de Notificação"). Unsigned: a
 * chargeback notice (ChangeType 7) is answered 200 at once and then read back from Cielo, which alone decides
 * whether a dispute opens. Other change types are answered 200 and left (the card sales job reads payments back).
 */
export async function cardNoticeRoutes(app: Http, deps: CardNoticeDeps): Promise<void> {
  // read-backs under way in this process, by PaymentId: a notice repeated meanwhile asks Cielo nothing more
  const running = new Map<string, Promise<unknown>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled([...running.values()]);
  });
  const later = (paymentId: string) =>
    deps.queue.send(
      deps.db,
      'disputes.card-notice',
      { paymentId },
      { singletonKey: paymentId, startAfterSeconds: 10 },
    );

  app.post(
    '/api/providers/cielo/notifications',
    {
      config: { errorShape: 'envelope', errors: ['NOT_FOUND', 'UNAUTHORIZED'] },
      schema: {
        summary: "Cielo's notification POST (a chargeback notice opens a dispute once Cielo confirms it)",
        tags: ['processors'],
        body: NoticeBody,
        response: { 200: Received, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody, 404: EnvelopeErrorBody },
      },
      preValidation: async (request) => {
        if (!deps.source) throw notFound('Cielo is not the card acquirer of this gateway');
        if (deps.secret === null) return;
        const given = request.headers[CIELO_SECRET_HEADER];
        if (typeof given !== 'string' || !constantTimeEqual(hashSecret(given), hashSecret(deps.secret))) {
          throw unauthorized('Invalid notification secret');
        }
      },
    },
    async (request) => {
      const { PaymentId, ChangeType } = request.body;
      if (Number(ChangeType) !== CIELO_CHARGEBACK_CHANGE_TYPE || !deps.source || running.has(PaymentId)) {
        return { received: true };
      }
      // a flood of notices (unsigned: anyone may send them) waits in the job queue, one per payment
      if (running.size >= MAX_READ_BACKS) {
        if ((await deps.source.saleOfPayment(PaymentId)) !== null) await later(PaymentId);
        return { received: true };
      }
      const log = request.log;
      const work = openNotifiedChargeback(deps.disputes, deps.source, PaymentId, log)
        .catch(async (err: unknown) => {
          // Cielo does not send a notice answered 200 again: the workers read it back until Cielo answers
          log.warn(
            { paymentId: PaymentId, err: (err as Error).message },
            'chargeback notice not read back yet',
          );
          await later(PaymentId);
        })
        .catch((err: unknown) => {
          log.error({ paymentId: PaymentId, err: (err as Error).message }, 'chargeback notice lost');
        })
        .finally(() => running.delete(PaymentId));
      running.set(PaymentId, work);
      return { received: true };
    },
  );
}
