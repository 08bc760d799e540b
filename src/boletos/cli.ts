import { readFileSync, writeFileSync } from 'node:fs';
import { type Command, UsageError } from '../platform/cli/command.js';
import { isRealDate, REAL_DATE_RULE } from '../platform/time/calendar.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { BoletoInputError } from './errors.js';

// each command loads the module's code when it runs: the CLI's help and usage load no more than this file

export const boletoCommands: Command[] = [
  {
    path: ['boletos', 'retorno'],
    usage: 'gateway boletos retorno FILE [--json]',
    summary:
      'Imports a CNAB 240 return file (segments T and U) of BOLETO_BANK: credits each liquidação once, by nosso ' +
      'número; a malformed file imports nothing.',
    example: 'gateway boletos retorno RETORNO_20261125.ret --json',
    optionHelp: {},
    options: {},
    positionals: 1,
    settlesSales: true,
    async run({ db, config }, _values, [file]) {
      let content: string;
      try {
        content = readFileSync(file!, 'latin1');
      } catch (err) {
        // the file named is the operation's input: one that cannot be read fails it (exit 1), as a bad one does
        throw new Error(`cannot read ${file}: ${(err as Error).message}`);
      }
      const [{ importRetorno, parseRetorno }, { Queue }, { createLogger }] = await Promise.all([
        import('./retorno.js'),
        import('../platform/jobs/queue.js'),
        import('../platform/observability/logger.js'),
      ]);
      let liquidacoes: ReturnType<typeof parseRetorno>;
      try {
        liquidacoes = parseRetorno(content, config.boleto, toSaoPaulo(new Date()).slice(0, 10));
      } catch (err) {
        if (err instanceof BoletoInputError)
          throw new Error(`${file} refused, nothing imported: ${err.message}`);
        throw err;
      }
      const queue = await Queue.start(db, createLogger(config.logLevel), null);
      try {
        const report = await importRetorno(db, queue, config.boleto, liquidacoes);
        // the contract's own words: it prints {lines, credited, alreadyPaid, unknown, rejected}, with --json or not
        return { result: report, text: JSON.stringify(report) };
      } finally {
        await queue.stop();
      }
    },
  },
  {
    path: ['boletos', 'remessa'],
    usage: 'gateway boletos remessa --date YYYY-MM-DD [--out FILE] [--json]',
    summary:
      "Writes the CNAB 240 registration file of a São Paulo day: the boletos issued that day and still awaiting payment (segments P and Q, and R for a fine; one cancelled or paid already is left out), and a baixa (movement 02) of each boleto an earlier day's file registered that was cancelled or paid by its Pix since.",
    example: 'gateway boletos remessa --date 2026-11-25 --out REMESSA_20261125.rem',
    optionHelp: {
      date: 'the day (São Paulo) whose boletos are registered',
      out: 'the file written (default remessa-<date>.rem in the current folder)',
    },
    options: { date: { type: 'string' }, out: { type: 'string' } },
    async run({ db, config }, values) {
      const day = values.date;
      if (!isRealDate(day)) throw new UsageError(`--date must be ${REAL_DATE_RULE}, got "${day ?? ''}"`);
      // a day not yet begun has no boletos, and would record the baixas owed since as asked in a file not sent
      const today = toSaoPaulo(new Date()).slice(0, 10);
      if (day > today)
        throw new UsageError(`--date must be today (${today}, São Paulo) or earlier, got "${day}"`);
      const out = typeof values.out === 'string' && values.out ? values.out : `remessa-${day}.rem`;
      const [{ remessaOf, recordRemessa }, { beneficiaryKey }, { remessa }] = await Promise.all([
        import('./registration.js'),
        import('./issue.js'),
        import('./remessa.js'),
      ]);
      const content = await remessaOf(db, beneficiaryKey(config.boleto), day);
      const sequence = Number(day.replace(/-/g, '').slice(2)); // one file a day: the date is its number
      await recordRemessa(db, day, content, () =>
        writeFileSync(
          out,
          remessa(config.boleto, day, sequence, content.register, content.takeDown),
          'latin1',
        ),
      );
      const { register, takeDown, leftOut } = content;
      const notes = [
        ...(leftOut > 0 ? [`${leftOut} left out: cancelled or paid already`] : []),
        ...(takeDown.length > 0
          ? [`${takeDown.length} taken down: cancelled or paid by Pix since registered`]
          : []),
      ];
      return {
        result: { file: out, boletos: register.length, takenDown: takeDown.length, leftOut },
        text: `${out}: ${register.length} boletos${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`,
      };
    },
  },
];
