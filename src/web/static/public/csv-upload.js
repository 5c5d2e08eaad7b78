// Uploading CSV files into a file source, dropped on a zone or chosen with its file input: one at a time, with progress.
import { upload } from './api.js';

/**
 * Wires `zone` (which holds the file input, a progress bar and its label, found by their data-upload roles) to send
 * each file to `url()`. `onUploaded(reply)` and `onRefused(text)` hear each file's outcome; `afterBatch(count)`
 * runs once the files dropped or chosen together are done, with how many were uploaded.
 */
export function setUpUploads(zone, { url, onUploaded, onRefused, afterBatch = () => {} }) {
  const input = zone.querySelector('[data-upload="input"]');
  const progress = zone.querySelector('[data-upload="progress"]');
  const bar = zone.querySelector('[data-upload="bar"]');
  const label = zone.querySelector('[data-upload="label"]');

  async function uploadFiles(files) {
    let uploaded = 0;
    for (const file of files) {
      if (!file.name.toLowerCase().endsWith('.csv')) {
        onRefused(`${file.name} is not a .csv file.`);
        continue;
      }
      progress.hidden = false;
      label.textContent = `Uploading ${file.name}`;
      bar.value = 0;
      try {
        onUploaded(await upload(url(), file, (fraction) => { bar.value = fraction; }));
        uploaded += 1;
      } catch (error) {
        onRefused(`${file.name}: ${error.message}`);
      }
    }
    progress.hidden = true;
    afterBatch(uploaded);
  }

  input.addEventListener('change', () => { void uploadFiles([...input.files]).then(() => { input.value = ''; }); });
  zone.addEventListener('dragover', (event) => { event.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', () => { zone.classList.remove('over'); });
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    void uploadFiles([...event.dataTransfer.files]);
  });
}
