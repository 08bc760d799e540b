import { type Command, required, UsageError } from '../platform/cli/command.js';
import { Queue } from '../platform/jobs/queue.js';
import { createLogger } from '../platform/observability/logger.js';
import { CLI_OPERATOR } from './audit.js';
import { OperatorInvitations } from './invitations.js';
import { isOperatorRole, OPERATOR_ROLES } from './roles.js';

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
    secrets: true,
    async run({ db, config }, values) {
      const role = required(values, 'role');
      if (!isOperatorRole(role)) throw new UsageError(`--role must be one of ${OPERATOR_ROLES.join(', ')}`);
      // the invitation e-mail is queued in the same transaction; the gateway's workers send it
      const queue = await Queue.start(db, createLogger(config.logLevel), null);
      try {
        const invitations = new OperatorInvitations(
          db,
          { queue, key: config.secretsKey },
          config.secretsKey,
          config.publicUrl,
        );
        const invited = await invitations.invite(required(values, 'email'), role, CLI_OPERATOR);
        return {
          result: invited,
          text: `invited operator ${invited.operator.id} (${invited.operator.email}, ${role})\ninvitation link (shown once, valid 72 hours): ${invited.invitationUrl}`,
        };
      } finally {
        await queue.stop();
      }
    },
  },
];
