// Search from disk: a page opened as file:// may not start a Web Worker (its origin is opaque), and
// the theme runs its search index in one. Under file:// this replaces `Worker` with one that runs
// the worker's script in a hidden same-origin <iframe>; messages go both ways as "message" events.
// The theme's offline plugin would load the same kind of shim from a CDN; this local copy keeps the
// site free of outside requests (mkdocs.yml: extra.polyfills). Served over http(s), it does nothing.
(function () {
  "use strict";
  if (window.location.protocol !== "file:") return;

  class IFrameWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._queue = [];
      this._ready = false;
      this._frame = document.createElement("iframe");
      this._frame.hidden = true;
      this._frame.setAttribute("aria-hidden", "true");
      (document.body || document.documentElement).appendChild(this._frame);
      const scope = this._frame.contentWindow;
      // the worker's postMessage(data) becomes a "message" event on this object
      scope.postMessage = (data) => this._emit(new MessageEvent("message", { data: data }));
      const script = scope.document.createElement("script");
      script.src = new URL(url, document.baseURI).href;
      script.onload = () => {
        this._ready = true;
        for (const data of this._queue.splice(0)) this._deliver(data);
      };
      script.onerror = () => this._emit(new ErrorEvent("error", { message: "cannot load " + url }));
      scope.document.head.appendChild(script);
    }

    _emit(event) {
      this.dispatchEvent(event);
      const handler = event.type === "message" ? this.onmessage : this.onerror;
      if (typeof handler === "function") handler.call(this, event);
    }

    _deliver(data) {
      const scope = this._frame.contentWindow;
      scope.dispatchEvent(new scope.MessageEvent("message", { data: data }));
    }

    postMessage(data) {
      if (this._ready) this._deliver(data);
      else this._queue.push(data);
    }

    terminate() {
      this._frame.remove();
    }
  }

  window.IFrameWorker = IFrameWorker;
  window.Worker = IFrameWorker;
})();
