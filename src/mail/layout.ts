export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

export interface MailParts {
  subject: string;
  /** Paragraphs of plain text (Brazilian Portuguese); HTML-escaped in the HTML part. */
  paragraphs: string[];
  /** Links after the paragraphs (a boleto's PDF), each a line of its own: a link in HTML, `label: url` in text. */
  links?: { label: string; url: string }[];
  action?: { label: string; url: string };
  /** A last line in small print (why the message was sent, how long a link works). */
  footnote?: string;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Every line break and control character of a piece becomes a space: data never starts a line of its own. */
const oneLine = (s: string) => s.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ');

/**
 * The text and HTML parts of one message, the same words in both. Each paragraph, the action and the footnote
 * is one line, whatever the data put in them: the layout alone places the line breaks.
 */
export function renderMail(raw: MailParts): MailContent {
  const parts: MailParts = {
    subject: oneLine(raw.subject),
    paragraphs: raw.paragraphs.map(oneLine),
    links: (raw.links ?? []).map((l) => ({ label: oneLine(l.label), url: oneLine(l.url) })),
    ...(raw.action ? { action: { label: oneLine(raw.action.label), url: oneLine(raw.action.url) } } : {}),
    ...(raw.footnote !== undefined ? { footnote: oneLine(raw.footnote) } : {}),
  };
  const links = parts.links ?? [];
  const text = [
    ...parts.paragraphs,
    ...links.map((l) => `${l.label}: ${l.url}`),
    ...(parts.action ? [`${parts.action.label}: ${parts.action.url}`] : []),
    ...(parts.footnote ? [parts.footnote] : []),
  ].join('\n\n');
  const button = parts.action
    ? `<p><a href="${escapeHtml(parts.action.url)}" style="display:inline-block;padding:10px 18px;background:#1f6feb;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(parts.action.label)}</a></p>
<p style="font-size:13px;color:#555">Se o botão não abrir, copie este endereço: ${escapeHtml(parts.action.url)}</p>`
    : '';
  const html = `<!doctype html>
<html lang="pt-BR"><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1b1f24;max-width:560px">
${parts.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('\n')}
${links.map((l) => `<p><a href="${escapeHtml(l.url)}">${escapeHtml(l.label)}</a></p>`).join('\n')}
${button}
${parts.footnote ? `<p style="font-size:13px;color:#555">${escapeHtml(parts.footnote)}</p>` : ''}
</body></html>
`;
  return { subject: parts.subject, text: `${text}\n`, html };
}
