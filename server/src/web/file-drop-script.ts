/**
 * Browser code that the sign and the verify page scripts both include (plain ES2020, no build step):
 * `wireFileDrop(fileInput, drop, handle)` calls `handle(file)` for a file chosen in `fileInput` or dropped
 * on `drop`, which carries the class `over` while something is dragged over it.
 */
export const FILE_DROP_SCRIPT = `  function wireFileDrop(fileInput, drop, handle) {
    fileInput.addEventListener('change', function () { if (fileInput.files[0]) handle(fileInput.files[0]); });
    drop.addEventListener('dragover', function (event) { event.preventDefault(); drop.classList.add('over'); });
    drop.addEventListener('dragleave', function () { drop.classList.remove('over'); });
    drop.addEventListener('drop', function (event) {
      event.preventDefault();
      drop.classList.remove('over');
      var file = event.dataTransfer && event.dataTransfer.files[0];
      if (file) handle(file);
    });
  }
`;
