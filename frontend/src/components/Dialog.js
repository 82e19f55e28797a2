import { html } from "htm/preact";
import { useEffect, useRef } from "preact/hooks";

/** A modal dialog, open while mounted; Escape or its Close button closes it. */
export function Dialog({ title, onClose, children, className = "" }) {
  const ref = useRef(null);
  useEffect(() => {
    const dialog = ref.current;
    dialog.showModal();
    const closed = () => onClose();
    dialog.addEventListener("close", closed);
    return () => dialog.removeEventListener("close", closed);
  }, []);
  return html`<dialog ref=${ref} class=${`panel ${className}`} aria-label=${title}>
    <header><h2>${title}</h2><form method="dialog"><button aria-label="close">Close</button></form></header>
    <div class="panel-body">${children}</div>
  </dialog>`;
}
