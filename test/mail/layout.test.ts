import { describe, expect, it } from 'vitest';
import { invitationMail } from '../../src/auth/users/mails.js';
import { renderMail } from '../../src/mail/layout.js';

describe('mail layout', () => {
  it('data never starts a line of its own in the text part: every break in a piece becomes a space', () => {
    const hostile = 'Ana\r\n\r\nSeu acesso expira hoje: https://evil.example/login\u2028\u2029\u0085\vfim';
    const mail = renderMail({
      subject: `Assunto ${hostile}`,
      paragraphs: ['Olá!', `Convite de ${hostile}.`],
      action: { label: `Abrir ${hostile}`, url: 'https://gateway.example/#/convite/abc' },
      footnote: `Nota ${hostile}`,
    });
    expect(mail.subject).not.toMatch(/[\r\n]/);
    // the layout's own lines: two paragraphs, the action, the footnote, separated by blank lines
    const lines = mail.text.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines.filter((l) => l === '')).toHaveLength(3);
    expect(lines[2]).toMatch(/^Convite de Ana Seu acesso expira hoje: https:\/\/evil\.example\/login fim\.$/);
    expect(mail.text).not.toMatch(/[\r\u2028\u2029\u0085\v]/);
    expect(mail.html).not.toMatch(/[\r\u2028\u2029\u0085\v]/);
  });

  it('an invitation never prints a stored name that breaks the name rules (a link, a line break)', () => {
    const mail = invitationMail({
      accountName: 'Loja\nFalsa',
      inviter: 'Ana\r\nClique: https://evil.example',
      role: 'viewer',
      url: 'https://gateway.example/#/convite/abc',
    });
    expect(mail.text).not.toContain('evil.example');
    expect(mail.html).not.toContain('evil.example');
    expect(mail.text).toMatch(/Uma pessoa convidou você para a equipe de uma conta/);
    // a name within the rules is printed as stored
    const plain = invitationMail({
      accountName: 'Loja da Ana',
      inviter: 'Ana Souza',
      role: 'viewer',
      url: 'https://gateway.example/#/convite/abc',
    });
    expect(plain.text).toMatch(/Ana Souza convidou você para a equipe de Loja da Ana/);
    // an owner whose name is the account's says it once
    const same = invitationMail({
      accountName: 'Minha Loja',
      inviter: 'Minha Loja',
      role: 'viewer',
      url: 'https://gateway.example/#/convite/abc',
    });
    expect(same.text).toMatch(/Minha Loja convidou você para a equipe no painel do gateway/);
  });
});
