// The part of the WebExtensions API (`chrome.*`, the same in Chromium and Firefox's `chrome` namespace)
// this extension calls, typed by hand: only these calls, so a new one is a decision, not an accident.
declare namespace chrome {
  namespace runtime {
    interface MessageSender {
      tab?: { id?: number; url?: string };
      frameId?: number;
      url?: string;
    }
    const onMessage: {
      addListener(
        callback: (
          message: unknown,
          sender: MessageSender,
          sendResponse: (response?: unknown) => void,
        ) => boolean | undefined,
      ): void;
    };
    function sendMessage(message: unknown): Promise<unknown>;
    function getURL(path: string): string;
    function openOptionsPage(): Promise<void>;
  }
  namespace tabs {
    interface Tab {
      id?: number;
      url?: string;
      title?: string;
    }
    function sendMessage(tabId: number, message: unknown, options?: { frameId?: number }): Promise<unknown>;
    function query(query: { active?: boolean; currentWindow?: boolean }): Promise<Tab[]>;
    const onRemoved: { addListener(callback: (tabId: number) => void): void };
  }
  namespace action {
    function setTitle(details: { tabId: number; title: string }): Promise<void>;
    function getTitle(details: { tabId: number }): Promise<string>;
    function setBadgeText(details: { tabId: number; text: string }): Promise<void>;
    function setBadgeBackgroundColor(details: { tabId: number; color: string }): Promise<void>;
    function setIcon(
      details: { tabId: number } & (
        | { path: Record<string, string> }
        | { imageData: Record<string, ImageData> }
      ),
    ): Promise<void>;
  }
  namespace storage {
    interface StorageArea {
      get(keys: string | string[] | null): Promise<Record<string, unknown>>;
      set(items: Record<string, unknown>): Promise<void>;
      remove(keys: string | string[]): Promise<void>;
    }
    const local: StorageArea;
    const session: StorageArea;
    const onChanged: {
      addListener(callback: (changes: Record<string, unknown>, areaName: string) => void): void;
    };
  }
}
