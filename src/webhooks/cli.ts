import { type Command, required, UsageError } from '../platform/cli/command.js';

// What `gateway trigger` and `listen` need of this module (the event names they check their arguments against,
// and the signature `listen` puts on what it forwards) without loading the rest of it. Each command below loads
// what it runs when it runs: the CLI's help and usage load no more than this file.
export { EVENT_NAMES, type EventName, isEventName } from './events.js';
export { signWebhook } from './signing.js';

export const notificationCommands: Command[] = [
  {
    path: ['webhooks', 'create'],
    usage: 'gateway webhooks create --account ID --url URL --events E1,E2 [--json]',
    summary:
      'Registers a webhook for an account, for set-ups with no browser (as the panel and POST /api/webhook do): its whsec_ secret is printed once.',
    example:
      'gateway webhooks create --account 1 --url https://loja.example.com/webhooks --events sale.paid,sale.refunded',
    optionHelp: {
      account: 'the numeric account id',
      url: 'where deliveries are sent (https in production)',
      events: 'comma-separated event types, or * for every one',
    },
    options: { account: { type: 'string' }, url: { type: 'string' }, events: { type: 'string' } },
    secrets: true,
    async run({ db, config }, values) {
      const account = required(values, 'account');
      if (!/^[1-9]\d{0,15}$/.test(account)) {
        throw new UsageError(`--account must be a numeric account id, got "${account}"`);
      }
      const events = required(values, 'events')
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean);
      const [{ CLI_ACTOR }, { WebhookService }] = await Promise.all([
        import('../audit/index.js'),
        import('./webhooks.js'),
      ]);
      const made = await new WebhookService(db, config).create(
        Number(account),
        { webhookUrl: required(values, 'url'), events },
        CLI_ACTOR,
      );
      return {
        result: made,
        text: [
          `webhook ${made.id} for account ${account}: ${made.webhookUrl} (${made.events.join(', ')})`,
          `secret: ${made.secret}`,
          'the secret is shown only now: keep it where your receiver reads it (it verifies every delivery)',
        ].join('\n'),
      };
    },
  },
  {
    path: ['notifications', 'prune'],
    usage: 'gateway notifications prune --older-than-days N [--json]',
    summary:
      'Drops the months of notification history (facts, deliveries, attempts) wholly older than the days given (events are kept at least 30 days; a month with pending work stays).',
    example: 'gateway notifications prune --older-than-days 90',
    optionHelp: { 'older-than-days': 'how old, in days, history must be to go' },
    options: { 'older-than-days': { type: 'string' } },
    async run({ db }, values) {
      const raw = required(values, 'older-than-days');
      if (!/^\d{1,5}$/.test(raw) || Number(raw) < 1) {
        throw new UsageError(`--older-than-days must be a whole number of days, at least 1, got "${raw}"`);
      }
      const before = new Date(Date.now() - Number(raw) * 86_400_000);
      const { pruneNotifications } = await import('./retention.js');
      const pruned = await pruneNotifications(db, before);
      const lines = [
        `notification history from before ${pruned.before}: ${pruned.dropped.length} month(s) dropped`,
        ...pruned.dropped.map(
          (m) => `  ${m.month}: about ${m.facts} facts, ${m.deliveries} deliveries, ${m.attempts} attempts`,
        ),
        ...pruned.kept.map((m) => `  ${m.month} kept: ${m.reason}`),
      ];
      return { result: pruned, text: lines.join('\n') };
    },
  },
];
