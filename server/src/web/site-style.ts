/** The stylesheet of the service's pages, served at `/assets/siegel.css`. */
export const SITE_STYLE = `:root{color-scheme:light;--fg:#1d1d1f;--muted:#5f6368;--ok:#2e7d32;--bad:#b3261e;--line:#d0d0d7}
*{box-sizing:border-box}body{font:16px/1.5 system-ui,sans-serif;color:var(--fg);max-width:54rem;margin:0 auto;padding:1rem}
header nav a{margin-right:1rem}a{overflow-wrap:anywhere}h1{font-size:1.7rem}code,pre{font:14px/1.4 ui-monospace,monospace;background:#f3f3f5;border-radius:4px}
code{padding:0 .2rem;word-break:break-all}pre{padding:.75rem;overflow:auto;white-space:pre-wrap;word-break:break-all}
.drop{border:2px dashed var(--line);border-radius:8px;padding:2rem;text-align:center;margin:1rem 0}
.drop.over{border-color:#1a73e8;background:#eef4ff}label{display:block;margin:.5rem 0}
input[type=text],input[type=password]{width:100%;padding:.4rem;font:inherit}button{font:inherit;padding:.4rem 1rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dt{color:var(--muted)}dd{margin:0;word-break:break-word}
.ok{color:var(--ok)}.bad{color:var(--bad)}.verdict{font-size:1.3rem;font-weight:600}[hidden]{display:none!important}`;
