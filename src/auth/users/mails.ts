import { renderMail } from '../../mail/index.js';
import { greeting, nameForMail } from '../../platform/text/names.js';
import type { Role } from '../roles.js';

export const ROLE_LABELS: Record<Role, string> = {
  owner: 'Proprietário',
  admin: 'Administrador',
  finance: 'Financeiro',
  developer: 'Desenvolvedor',
  viewer: 'Somente leitura',
};

/** Who the invitation e-mails speak of: the inviter, the team's account and the role offered. */
interface Invited {
  accountName: string;
  inviter: string;
  role: Role;
}

/** Both invitation e-mails' subject. */
const invitationSubject = (p: Invited) =>
  `Convite para a equipe de ${nameForMail(p.accountName, 'uma conta')}`;

/** How both invitation e-mails begin: who invited the reader to which team, with which role. */
const invitedLines = (p: Invited) => {
  const team = nameForMail(p.accountName, 'uma conta');
  const inviter = nameForMail(p.inviter, 'Uma pessoa');
  // an owner named as the account (the command line's first user) is named once: "X convidou você para a equipe"
  const who =
    inviter === team
      ? `${inviter} convidou você para a equipe`
      : `${inviter} convidou você para a equipe de ${team}`;
  return ['Olá!', `${who} no painel do gateway, com o papel ${ROLE_LABELS[p.role]}.`];
};

export function invitationMail(p: Invited & { url: string }) {
  return renderMail({
    subject: invitationSubject(p),
    paragraphs: [...invitedLines(p), 'Para aceitar, abra o link abaixo e escolha sua senha.'],
    action: { label: 'Aceitar convite', url: p.url },
    footnote:
      'O link vale por 72 horas e só pode ser usado uma vez. Se você não esperava este convite, ignore este e-mail.',
  });
}

/**
 * Sent instead of the invitation when the address is already a user of another account: the invitee learns it,
 * the inviter does not (the answer, the audit entry and the team list are those of any invitation).
 */
export function takenAddressMail(p: Invited) {
  return renderMail({
    subject: invitationSubject(p),
    paragraphs: [
      ...invitedLines(p),
      'Este endereço de e-mail já tem um acesso ao painel, em outra conta, e um endereço não pode participar de duas contas. Por isso este convite não pode ser aceito.',
      'Se você quer participar desta equipe, peça a quem convidou que use outro endereço seu.',
    ],
    footnote: 'Se você não esperava este convite, ignore este e-mail.',
  });
}

export function passwordResetMail(p: { name: string; url: string }) {
  return renderMail({
    subject: 'Redefinição de senha',
    paragraphs: [
      greeting(p.name),
      'Recebemos um pedido para redefinir a senha do seu acesso ao painel. Para escolher uma nova senha, abra o link abaixo.',
    ],
    action: { label: 'Escolher nova senha', url: p.url },
    footnote:
      'O link vale por 1 hora e só pode ser usado uma vez. Se você não pediu a redefinição, ignore este e-mail: sua senha continua a mesma.',
  });
}
