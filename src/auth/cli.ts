import { type Command, required, UsageError } from '../platform/cli/command.js';
import { isKeyScope } from './key-scopes.js';

// the command loads the module's code when it runs: the CLI's help and usage load no more than this file

export const keyCommands: Command[] = [
  {
    path: ['keys', 'create'],
    usage:
      'gateway keys create --account ID --name N [--scope read|charges|full] [--read-only] [--env] [--json]',
    summary:
      'Issues an API key pair for an account, for set-ups with no browser: the private key is printed once and stored only as a hash.',
    example: 'gateway keys create --account 1 --name "loja (produção)"',
    optionHelp: {
      account: 'the numeric account id (`gateway accounts create` prints it)',
      name: 'what the pair is for, shown in the panel and the audit log',
      scope:
        'read (GET routes), charges (read, plus charges, links, checkout sessions, tokens, captures) or full (default: everything, refunds, cashouts and dispute answers included)',
      'read-only': 'the same as --scope read',
      env: 'print shell `export` lines (GATEWAY_PUBLIC_KEY, GATEWAY_PRIVATE_KEY) instead of the text',
    },
    options: {
      account: { type: 'string' },
      name: { type: 'string' },
      scope: { type: 'string' },
      'read-only': { type: 'boolean' },
      env: { type: 'boolean' },
    },
    async run({ db }, values) {
      const account = required(values, 'account');
      if (!/^[1-9]\d{0,15}$/.test(account)) {
        throw new UsageError(`--account must be a numeric account id, got "${account}"`);
      }
      const scope = values['read-only'] ? 'read' : (values.scope ?? 'full');
      if (values['read-only'] && values.scope !== undefined && values.scope !== 'read') {
        throw new UsageError('--read-only and --scope disagree: give one of them');
      }
      if (!isKeyScope(scope)) throw new UsageError(`--scope must be read, charges or full, got "${scope}"`);
      const [{ CLI_ACTOR }, { CredentialService }] = await Promise.all([
        import('../audit/index.js'),
        import('./credentials.js'),
      ]);
      const issued = await new CredentialService(db).issue(
        Number(account),
        { name: required(values, 'name'), scope },
        CLI_ACTOR,
      );
      const result = { accountId: Number(account), ...issued };
      if (values.env) {
        return {
          result,
          text: [
            `# key pair ${issued.id} "${issued.name}" (scope ${issued.scope}) for account ${account}: the private key is shown only now`,
            `export GATEWAY_PUBLIC_KEY=${issued.publicKey}`,
            `export GATEWAY_PRIVATE_KEY=${issued.privateKey}`,
          ].join('\n'),
        };
      }
      return {
        result,
        text: [
          `issued key pair ${issued.id} "${issued.name}" (scope ${issued.scope}) for account ${account}`,
          `x-api-public-key:  ${issued.publicKey}`,
          `x-api-private-key: ${issued.privateKey}`,
          'the private key is shown only now: keep it in your secrets store',
        ].join('\n'),
      };
    },
  },
];
