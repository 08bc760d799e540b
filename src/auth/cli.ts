import { CLI_ACTOR } from '../audit/index.js';
import { type Command, required, UsageError } from '../platform/cli/command.js';
import { CredentialService } from './credentials.js';

export const keyCommands: Command[] = [
  {
    path: ['keys', 'create'],
    usage: 'gateway keys create --account ID --name N [--read-only] [--json]',
    summary:
      'Issues an API key pair for an account, for set-ups with no browser: the private key is printed once and stored only as a hash.',
    example: 'gateway keys create --account 1 --name "loja (produção)"',
    optionHelp: {
      account: 'the numeric account id (`gateway accounts create` prints it)',
      name: 'what the pair is for, shown in the panel and the audit log',
      'read-only': 'a pair that reads but never moves money (scope read)',
    },
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      'read-only': { type: 'boolean' },
    },
    async run({ db }, values) {
      const account = required(values, 'account');
      if (!/^[1-9]\d{0,15}$/.test(account)) {
        throw new UsageError(`--account must be a numeric account id, got "${account}"`);
      }
      const issued = await new CredentialService(db).issue(
        Number(account),
        { name: required(values, 'name'), scope: values['read-only'] ? 'read' : 'full' },
        CLI_ACTOR,
      );
      return {
        result: { accountId: Number(account), ...issued },
        text: [
          `issued key pair ${issued.id} "${issued.name}" (${issued.scope === 'read' ? 'read-only' : 'full access'}) for account ${account}`,
          `x-api-public-key:  ${issued.publicKey}`,
          `x-api-private-key: ${issued.privateKey}`,
          'the private key is shown only now: keep it in your secrets store',
        ].join('\n'),
      };
    },
  },
];
