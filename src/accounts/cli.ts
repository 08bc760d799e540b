import { readFileSync } from 'node:fs';
import { type Command, onOffArg, required, UsageError } from '../platform/cli/command.js';
import { parsePercentE4, parseReais } from '../platform/money/money.js';
import type { AccountUpdate } from './accounts.js';

// each command loads the module's code when it runs: the CLI's help and usage load no more than this file
const accounts = () => import('./accounts.js');

function reaisArg(value: string | boolean | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const cents = typeof value === 'string' ? parseReais(value) : null;
  if (cents === null) throw new UsageError(`--${name} must be an amount in reais like 1.50, got "${value}"`);
  return cents;
}

function percentArg(value: string | boolean | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const e4 = typeof value === 'string' ? parsePercentE4(value) : null;
  if (e4 === null)
    throw new UsageError(`--${name} must be a percentage from 0 to 100 like 1.2, got "${value}"`);
  return e4;
}

function switchArg(value: string | boolean | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  return onOffArg(String(value), `--${name}`);
}

/**
 * A password given as `-` is read from standard input (first line), so it stays out of the process list and
 * the shell history: `printf '%s\n' "$PW" | gateway accounts update --id 7 --password -`.
 */
function passwordArg(value: string): string {
  if (value !== '-') return value;
  return readFileSync(0, 'utf8').split(/\r?\n/)[0] ?? '';
}

/** Only `off`: turning two-factor on takes the owner's authenticator, in the panel. */
function twoFactorArg(value: string | boolean | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'off') {
    throw new UsageError(`--two-factor takes only off (the owner turns it on in the panel), got "${value}"`);
  }
  return true;
}

function accountIdArg(values: Record<string, string | boolean | undefined>): number {
  const id = required(values, 'id');
  if (!/^[1-9]\d{0,15}$/.test(id)) throw new UsageError(`--id must be a numeric account id, got "${id}"`);
  return Number(id);
}

export const accountCommands: Command[] = [
  {
    path: ['accounts', 'create'],
    usage: 'gateway accounts create --name N --email E --password P|- [--json]',
    summary: 'Creates a merchant account, its panel login and its ledger accounts.',
    example:
      'gateway accounts create --name "Minha Loja" --email loja@example.com --password \'uma-senha-longa\'',
    optionHelp: {
      name: 'the business name shown in the panel',
      email: 'the panel login (unique, any case)',
      password: 'the panel password; `-` reads it from standard input',
    },
    options: { name: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
    async run({ db, config }, values) {
      const { createAccount, setDefaultFeePlan } = await accounts();
      setDefaultFeePlan(config.feePlanDefault);
      const account = await createAccount(db, {
        name: required(values, 'name'),
        email: required(values, 'email'),
        password: passwordArg(required(values, 'password')),
      });
      return { result: account, text: `created account ${account.id} (${account.email})` };
    },
  },
  {
    path: ['accounts', 'show'],
    usage: 'gateway accounts show --id ID [--json]',
    summary: "Prints an account's fees, switches and two-factor state, without changing anything.",
    example: 'gateway accounts show --id 1',
    optionHelp: { id: 'the account id' },
    options: { id: { type: 'string' } },
    async run({ db }, values) {
      const id = accountIdArg(values);
      const { accountSettingsView, getAccount } = await accounts();
      const row = await getAccount(db, id);
      if (!row) throw new Error(`no account with id ${id}`);
      const view = accountSettingsView(row);
      return { result: view, text: JSON.stringify(view, null, 2) };
    },
  },
  {
    path: ['accounts', 'update'],
    usage:
      'gateway accounts update --id ID [--cashout-fee-fixed 1.50] [--cashout-fee-percent 1.2] [--sale-fee-percent 3.99] [--sale-fee-fixed 0.99] [--reserve-percent 0] [--card-fee-percent 4.99] [--card-installment-fee-percent 1.5] [--anticipation-monthly-percent 2.99] [--api-cashout on|off] [--transfers on|off] [--cart-recovery-email on|off] [--password P|-] [--two-factor off] [--json]',
    summary:
      "Changes an account's fees, switches or password (audited); prints the settings after the change.",
    example: 'gateway accounts update --id 1 --sale-fee-percent 3.99 --sale-fee-fixed 0.99',
    optionHelp: {
      id: 'the account id',
      'cashout-fee-fixed': 'fixed cashout fee in reais',
      'cashout-fee-percent': 'cashout fee in per cent',
      'sale-fee-percent': 'sale fee in per cent',
      'sale-fee-fixed': 'fixed sale fee in reais',
      'reserve-percent': 'share of each paid sale held as reserve, in per cent',
      'card-fee-percent': 'card sale fee in per cent (in place of the sale fee; unset: the sale fee)',
      'card-installment-fee-percent':
        'added to the card fee for each installment after the first, in per cent',
      'anticipation-monthly-percent':
        'anticipation fee per month brought forward, in per cent (any fee option takes the account off its fee plan)',
      'api-cashout': 'on|off: cashouts through the API',
      transfers: 'on|off: transfers at all',
      'cart-recovery-email': 'on|off: one e-mail to the payer of an abandoned checkout cart, with its page',
      password: 'a new panel password (ends every session); `-` reads it from standard input',
      'two-factor': "off: turns the account's two-factor login off (a lost authenticator)",
    },
    options: {
      id: { type: 'string' },
      'cashout-fee-fixed': { type: 'string' },
      'cashout-fee-percent': { type: 'string' },
      'sale-fee-percent': { type: 'string' },
      'sale-fee-fixed': { type: 'string' },
      'reserve-percent': { type: 'string' },
      'card-fee-percent': { type: 'string' },
      'card-installment-fee-percent': { type: 'string' },
      'anticipation-monthly-percent': { type: 'string' },
      'api-cashout': { type: 'string' },
      transfers: { type: 'string' },
      'cart-recovery-email': { type: 'string' },
      password: { type: 'string' },
      'two-factor': { type: 'string' },
    },
    async run({ db }, values) {
      const id = accountIdArg(values);
      const update: AccountUpdate = {
        cashoutFeeFixed: reaisArg(values['cashout-fee-fixed'], 'cashout-fee-fixed'),
        cashoutFeePercentE4: percentArg(values['cashout-fee-percent'], 'cashout-fee-percent'),
        saleFeePercentE4: percentArg(values['sale-fee-percent'], 'sale-fee-percent'),
        saleFeeFixed: reaisArg(values['sale-fee-fixed'], 'sale-fee-fixed'),
        reservePercentE4: percentArg(values['reserve-percent'], 'reserve-percent'),
        cardFeePercentE4: percentArg(values['card-fee-percent'], 'card-fee-percent'),
        cardInstallmentFeePercentE4: percentArg(
          values['card-installment-fee-percent'],
          'card-installment-fee-percent',
        ),
        anticipationMonthlyPercentE4: percentArg(
          values['anticipation-monthly-percent'],
          'anticipation-monthly-percent',
        ),
        apiCashout: switchArg(values['api-cashout'], 'api-cashout'),
        transfers: switchArg(values.transfers, 'transfers'),
        cartRecoveryEmail: switchArg(values['cart-recovery-email'], 'cart-recovery-email'),
        password: values.password === undefined ? undefined : passwordArg(String(values.password)),
        twoFactorOff: twoFactorArg(values['two-factor']),
      };
      const { accountSettingsView, updateAccount } = await accounts();
      const row = await updateAccount(db, id, update);
      const view = accountSettingsView(row);
      return { result: view, text: `updated account ${row.id}: ${JSON.stringify(view)}` };
    },
  },
  {
    path: ['settings', 'set'],
    usage: 'gateway settings set api-withdrawals on|off [--json]',
    summary: "Sets an operator switch for every account at once (audited in each account's log).",
    example: 'gateway settings set api-withdrawals off',
    optionHelp: {},
    options: {},
    positionals: 2,
    async run({ db }, _values, positionals) {
      const [name, value] = positionals;
      if (name !== 'api-withdrawals')
        throw new UsageError(`unknown setting "${name ?? ''}" (known: api-withdrawals)`);
      const on = onOffArg(value ?? '', 'api-withdrawals');
      const { setApiWithdrawals } = await import('./settings.js');
      await setApiWithdrawals(db, on);
      return {
        result: { setting: 'api-withdrawals', value: on ? 'on' : 'off' },
        text: `api-withdrawals is ${on ? 'on' : 'off'}`,
      };
    },
  },
];
