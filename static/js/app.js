// Keyboard shortcuts. Every shortcut is a plain link or button on the page; a key press only
// clicks it, so the page works the same without JavaScript. Elements declare their key with
// data-shortcut="n"; "?" opens the list of shortcuts.
(function () {
  "use strict";
  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.key === "?") {
      var help = document.getElementById("shortcuts-help");
      if (help && help.showModal) { help.showModal(); event.preventDefault(); }
      return;
    }
    var target = document.querySelector('[data-shortcut="' + CSS.escape(event.key) + '"]');
    if (target && !target.disabled) {
      event.preventDefault();
      if (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT") {
        target.focus();
      } else {
        target.click();
      }
    }
  });
})();
