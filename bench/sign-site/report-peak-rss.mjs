// Preload (`node --import …/report-peak-rss.mjs program`) for a process the bench does not write itself (the
// `siegel` CLI): at exit it writes `PEAK_RSS_KB=<n>` to stderr, its peak RSS (see peak-rss.mjs).
import { peakRssKib } from './peak-rss.mjs';

process.on('exit', () => process.stderr.write(`PEAK_RSS_KB=${peakRssKib()}\n`));
