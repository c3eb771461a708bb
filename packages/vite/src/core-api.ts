// TEMPORARY bridge until @siegel/core exports signSite/createSiteSigner/formatSummary (agreed contract).
// Replaced by direct imports from '@siegel/core' once they land.
import * as core from '@siegel/core';

export interface SignSummary {
  signed: number;
  unchanged: number;
  skipped: number;
  failed: number;
  pages: Array<{ path: string; outcome: 'signed' | 'unchanged' | 'skipped' | 'failed' | 'would-sign'; eventId?: string; error?: string }>;
}
export interface SignSiteOptions {
  site?: string;
  selector?: string;
  dryRun?: boolean;
  verbose?: boolean;
  cacheFile?: string;
  files?: string[];
  env?: Record<string, string | undefined>;
  bunkerUrl?: string;
  bunkerApiToken?: string;
  bunkerKeyName?: string;
  logger?: { info(m: string): void; warn(m: string): void; error?(m: string): void };
}
interface Pending {
  signSite(dir: string, options?: SignSiteOptions): Promise<SignSummary>;
  formatSummary(summary: SignSummary): string;
  createSiteSigner(options: SignSiteOptions & { outDir: string }): {
    signPage(relativePath: string, html: string): Promise<string>;
    finish(): Promise<SignSummary>;
  };
}
const pending = core as unknown as Pending;
export const signSite: Pending['signSite'] = (...args) => pending.signSite(...args);
export const formatSummary: Pending['formatSummary'] = (...args) => pending.formatSummary(...args);
export const createSiteSigner: Pending['createSiteSigner'] = (...args) => pending.createSiteSigner(...args);
export const { SiegelError, loadEnv } = core;
