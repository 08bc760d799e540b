/**
 * Pages built by Vite whose `#app` the server fills for each request: with the data the page's script reads
 * (`data-page`, an attribute: the CSP forbids inline scripts), or with a notice and no script at all.
 */
const APP = '<div id="app"></div>';

export function withPageData(template: string, data: unknown, banner = ''): string {
  return template.replace(
    APP,
    `${banner}<div id="app" data-page="${escapeHtml(JSON.stringify(data))}"></div>`,
  );
}

/** The page saying why there is nothing to show: the same stylesheet, its title, no script. */
export function noticePage(template: string, notice: { title: string; text: string }, banner = ''): string {
  return template
    .replace(/<script\b[^>]*><\/script>\s*/g, '')
    .replace(/<link rel="modulepreload"[^>]*>\s*/g, '')
    .replace(/<title>[^<]*<\/title>/, `<title>${notice.title}</title>`)
    .replace(
      APP,
      `${banner}<div id="app"><main class="page"><section class="card notice"><h1>${notice.title}</h1><p>${notice.text}</p></section></main></div>`,
    );
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
