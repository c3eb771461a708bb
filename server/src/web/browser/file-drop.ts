// Browser code that the sign and the verify page scripts both bundle (see scripts/build-browser-scripts.mjs).

/**
 * Call `handle(file)` for a file chosen in `fileInput` or dropped on `drop`, which carries the class `over`
 * while something is dragged over it.
 */
export function wireFileDrop(
  fileInput: HTMLInputElement,
  drop: HTMLElement,
  handle: (file: File) => unknown,
): void {
  fileInput.addEventListener('change', () => {
    const file = fileInput.files?.[0];
    if (file) handle(file);
  });
  drop.addEventListener('dragover', (event) => {
    event.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => {
    drop.classList.remove('over');
  });
  drop.addEventListener('drop', (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    const file = event.dataTransfer?.files[0];
    if (file) handle(file);
  });
}

/** The element with this id, as the page renders it (`server/src/web/*.tsx`). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}
