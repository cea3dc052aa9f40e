// The checkout's one script. Every page works without it. On any page that
// loads it, it shows the controls that need it and copies with an announced
// confirmation (the payer's amount and address, a webhook signing secret);
// on the payer page it also follows the payment by itself (polls /status,
// reloads when the payload changes, refreshes what has been seen now and
// then and reloads when the amount still to send changed), counts down from
// the server's clock, switches QR codes without a reload and prints the
// receipt.
(function () {
  "use strict";

  // Controls that need this script are hidden until it runs.
  document.querySelectorAll("[data-js-only]").forEach(function (el) {
    el.hidden = false;
  });

  // ---- copy buttons and print
  var copyStatus = document.getElementById("copy-status");
  var clearCopyStatus = 0;
  function announce(message) {
    if (!copyStatus) return;
    clearTimeout(clearCopyStatus);
    copyStatus.textContent = "";
    // A fresh text after a moment is announced even when it repeats the last one.
    setTimeout(function () {
      copyStatus.textContent = message;
      clearCopyStatus = setTimeout(function () { copyStatus.textContent = ""; }, 6000);
    }, 100);
  }
  function copyByHand(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    var done = false;
    try { done = document.execCommand("copy"); } catch { done = false; }
    area.remove();
    return done;
  }
  function copy(button) {
    var text = button.getAttribute("data-copy");
    var done = button.getAttribute("data-copied") || "Copied";
    var failed = "Could not copy. Select the text and copy it yourself.";
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { announce(done); },
        function () { announce(copyByHand(text) ? done : failed); }
      );
    } else {
      announce(copyByHand(text) ? done : failed);
    }
  }
  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    var button = target && target.closest("[data-copy]");
    if (button) return copy(button);
    if (target && target.closest("[data-print]")) window.print();
  });

  // ---- the rest is the payer page's
  var root = document.getElementById("payer");
  if (!root) return;

  // ---- QR switch: the payment request or the bare address, without a reload
  var qrSwitch = document.getElementById("qr-switch");
  var qrRequest = document.getElementById("qr-eip681");
  var qrAddress = document.getElementById("qr-address");
  if (qrSwitch && qrRequest && qrAddress) {
    qrSwitch.addEventListener("click", function (event) {
      event.preventDefault();
      qrRequest.hidden = !qrRequest.hidden;
      qrAddress.hidden = !qrAddress.hidden;
      var href = qrSwitch.getAttribute("href");
      var text = qrSwitch.textContent;
      // The address bar says which code is shown, so a reload keeps it.
      history.replaceState(null, "", href);
      qrSwitch.setAttribute("href", qrSwitch.getAttribute("data-other-href"));
      qrSwitch.textContent = qrSwitch.getAttribute("data-other-text");
      qrSwitch.setAttribute("data-other-href", href);
      qrSwitch.setAttribute("data-other-text", text);
    });
  }

  // ---- status poll: every 3 s, every 10 s after a minute, never faster than a 429 allows
  var statusUrl = root.getAttribute("data-status-url");
  var shown = {};
  try { shown = JSON.parse(root.getAttribute("data-status") || "{}"); } catch { shown = {}; }
  var polling = root.hasAttribute("data-poll") && statusUrl && window.fetch;
  var startedAt = Date.now();
  var timer = 0;
  function interval() {
    return Date.now() - startedAt < 60000 ? 3000 : 10000;
  }
  function changed(now) {
    var keys = Object.keys(shown).concat(Object.keys(now));
    return keys.some(function (key) { return JSON.stringify(shown[key]) !== JSON.stringify(now[key]); });
  }
  function pollSoon(ms) {
    if (!polling) return;
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }
  function poll() {
    fetch(statusUrl, { headers: { accept: "application/json" }, cache: "no-store", credentials: "same-origin" })
      .then(function (res) {
        if (res.status === 429) {
          var wait = Number(res.headers.get("retry-after"));
          return pollSoon(Math.max(interval(), (wait > 0 ? wait : 10) * 1000));
        }
        if (!res.ok) return pollSoon(10000);
        return res.json().then(function (now) {
          if (changed(now)) return location.reload();
          pollSoon(interval());
        });
      })
      .catch(function () { pollSoon(10000); });
  }
  pollSoon(interval());

  // ---- countdown from the seconds the server counted, on this device's monotonic clock
  var countdown = document.getElementById("countdown");
  function clock(seconds) {
    var h = Math.floor(seconds / 3600);
    var m = Math.floor((seconds % 3600) / 60);
    var s = seconds % 60;
    var mmss = (m < 10 ? "0" : "") + m + ":" + (s < 10 ? "0" : "") + s;
    return h > 0 ? h + ":" + mmss : mmss;
  }
  if (countdown) {
    var endsAt = performance.now() + Number(countdown.getAttribute("data-seconds")) * 1000;
    var tick = function () {
      var ms = endsAt - performance.now();
      var left = ms <= 0 ? 0 : Math.ceil(ms / 1000);
      countdown.textContent = clock(left);
      if (left > 0) setTimeout(tick, (ms % 1000) + 20);
      else pollSoon(1500);
    };
    tick();
  }

  // ---- what has been seen (received, part paid, …): re-read from the page now and then
  var statusLine = document.getElementById("payment-status");
  function refreshEvidence() {
    fetch(location.href, { cache: "no-store", credentials: "same-origin" })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html");
        // What the payer is asked to send changed (part of it arrived, or all of it):
        // the amount, its copy button and the QR code change with it, so the page is drawn anew.
        var freshAsk = fresh.getElementById("send-title");
        var ask = document.getElementById("send-title");
        if (freshAsk && ask && freshAsk.textContent !== ask.textContent) return location.reload();
        var freshLine = fresh.getElementById("payment-status");
        // The live region stays in place, so a change of its text is announced.
        if (freshLine && statusLine && freshLine.textContent !== statusLine.textContent) {
          statusLine.className = freshLine.className;
          statusLine.textContent = freshLine.textContent;
        }
        var freshEvidence = fresh.getElementById("evidence");
        var evidence = document.getElementById("evidence");
        if (freshEvidence && evidence && freshEvidence.innerHTML !== evidence.innerHTML) {
          evidence.replaceWith(document.importNode(freshEvidence, true));
        }
      })
      .catch(function () { /* the next round tries again */ });
  }
  if (polling && root.hasAttribute("data-refresh-evidence") && window.DOMParser) setInterval(refreshEvidence, 15000);
})();
