/**
 * A paged list's answer to its loader's refusal: a refused first page (a period ending before it starts) leaves
 * none of the rows the filter before it found on screen (`clear`), and the error says why; a refused later page
 * keeps the rows shown.
 */
export function pageRefused(after: string | undefined, clear: () => void, show: (err: unknown) => void) {
  return (err: unknown) => {
    if (!after) clear();
    show(err);
  };
}
