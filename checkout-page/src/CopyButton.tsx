import { useState } from 'preact/hooks';

/** Copies `text`; where the clipboard is refused, selects the field holding it (the phone's own copy is a tap away). */
export function CopyButton(props: { text: string; field: string; label: string; done: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.text);
    } catch {
      (document.getElementById(props.field) as HTMLTextAreaElement | HTMLInputElement | null)?.select();
      return;
    }
    setCopied(true);
    setTimeout(() => setCopied(false), 3000);
  };
  return (
    <button type="button" onClick={copy}>
      {copied ? props.done : props.label}
    </button>
  );
}
