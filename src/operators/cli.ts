import { type Command, required, UsageError } from '../platform/cli/command.js';
import { isOperatorRole, OPERATOR_ROLES } from './roles.js';

// the command loads the module's code when it runs: the CLI's help and usage load no more than this file

export const operatorCommands: Command[] = [
  {
    path: ['operators', 'create'],
    usage: 'gateway operators create --email E --role admin|risk|finance|support [--json]',
    summary:
      "Invites a person to the operators' console (/ops): prints the one-time invitation link (also e-mailed). They set a password and enrol TOTP before the first login.",
    example: 'gateway operators create --email ana@gateway.example --role admin',
    optionHelp: {
      email: "the operator's e-mail (their login)",
      role: `one of ${OPERATOR_ROLES.join(', ')} (each includes the one before)`,
    },
    options: { email: { type: 'string' }, role: { type: 'string' } },
    async run({ db, config }, values) {
      const role = required(values, 'role');
      if (!isOperatorRole(role)) throw new UsageError(`--role must be one of ${OPERATOR_ROLES.join(', ')}`);
      // no SECRETS_KEY here (an operator command's environment): the invitation e-mail, queued in the same
      // transaction for the gateway's workers to send, is sealed to the key the gateway published at start; its
      // link points where the gateway said it is, unless PUBLIC_URL is given here
      const [
        { publishedMailGateway },
        { Queue },
        { createLogger },
        { CLI_OPERATOR },
        { OperatorInvitations },
      ] = await Promise.all([
        import('../mail/index.js'),
        import('../platform/jobs/queue.js'),
        import('../platform/observability/logger.js'),
        import('./audit.js'),
        import('./invitations.js'),
      ]);
      const gateway = await publishedMailGateway(db);
      const publicUrl = config.publicUrlGiven ? config.publicUrl : (gateway?.publicUrl ?? config.publicUrl);
      const queue = await Queue.start(db, createLogger(config.logLevel), null);
      try {
        const invitations = new OperatorInvitations(
          db,
          gateway ? { queue, publicKey: gateway.publicKey } : null,
          config.secretsKey,
          publicUrl,
        );
        const invited = await invitations.invite(required(values, 'email'), role, CLI_OPERATOR);
        const mailed = gateway
          ? `e-mailed to ${invited.operator.email} by the gateway's workers`
          : 'not e-mailed: no gateway has started on this database yet (it publishes the key e-mails are sealed to); give the link to the person, or resend the invitation from the console';
        return {
          result: { ...invited, invitationMailed: gateway !== null },
          text: `invited operator ${invited.operator.id} (${invited.operator.email}, ${role})\ninvitation link (shown once, valid 72 hours): ${invited.invitationUrl}\n${mailed}`,
        };
      } finally {
        await queue.stop();
      }
    },
  },
  {
    path: ['operators', 'disable'],
    usage: 'gateway operators disable --email E [--json]',
    summary:
      "Disables an operator's access to the console: their sessions end at once, their password and authenticator are forgotten. A new invitation (the console's Operadores page) brings them back. The last active admin is kept.",
    example: 'gateway operators disable --email ana@gateway.example',
    optionHelp: { email: "the operator's e-mail (their login)" },
    options: { email: { type: 'string' } },
    async run({ db }, values) {
      const [{ CLI_OPERATOR }, { OperatorStaff, operatorIdByEmail }] = await Promise.all([
        import('./audit.js'),
        import('./staff.js'),
      ]);
      const operator = await new OperatorStaff(db).disable(
        await operatorIdByEmail(db, required(values, 'email')),
        CLI_OPERATOR,
      );
      return {
        result: { operator },
        text: `operator ${operator.id} (${operator.email}) is disabled: their sessions ended; a new invitation from the console brings them back`,
      };
    },
  },
];
