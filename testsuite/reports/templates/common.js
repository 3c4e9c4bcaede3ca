// testsuite HTML pages: helpers shared by the score report and the comparison page.
// Everything from the data is inserted with textContent (never as markup); CSV cells are
// neutralised against formula injection; the filter state lives in the address.
(function () {
  "use strict";
  var TS = {};

  TS.element = function (tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  };

  TS.option = function (select, value, text) {
    var node = TS.element("option", "", text);
    node.value = value;
    select.appendChild(node);
    return node;
  };

  // Call `action` once typing has paused for `wait` ms.
  TS.debounce = function (action, wait) {
    var timer = null;
    return function () {
      clearTimeout(timer);
      timer = setTimeout(action, wait);
    };
  };

  TS.number = function (value) { return value.toLocaleString("en"); };

  // A number with `digits` decimals as Python formats it (reports/common.py, percent): ties
  // of the exact binary value go to the even digit (81.25 → "81.2"), where toFixed goes up.
  TS.fixed = function (value, digits) {
    var text = value.toFixed(digits);
    var exact = Math.abs(value).toPrecision(100).replace(/0+$/, "");
    var point = exact.indexOf(".");
    if (point < 0 || exact.length !== point + digits + 2 || exact.charAt(exact.length - 1) !== "5") return text;
    var kept = exact.slice(0, point + digits + 1).replace(/\.$/, "");
    var last = Number(kept.charAt(kept.length - 1));
    return last % 2 === 0 ? (value < 0 ? "-" : "") + kept : text;
  };

  TS.percent = function (value, digits) {
    return value === null || value === undefined ? "–" : TS.fixed(100 * value, digits === undefined ? 1 : digits);
  };

  // A p-value as a reader sees it: "p = 0.031", "p = 3.5e-7", "p < 1e-9"; two significant
  // digits, never rounded to zero ("" without a value). The rule of reports/common.py,
  // p_text.
  TS.pText = function (value) {
    if (value === null || value === undefined || !isFinite(value)) return "";
    if (value < 1e-9) return "p < 1e-9";
    var rounded = Number(Number(value).toPrecision(2));
    if (rounded >= 1e-3) return "p = " + String(rounded);
    return "p = " + rounded.toExponential(1).replace(".0e", "e");
  };

  // ---- CSV (RFC 4180), with cells neutralised as OWASP recommends against formula
  // injection: a cell starting with = + - @ tab or carriage return gets a leading ',
  // unless it is a plain number (the rule of reports/escape.py, csv_cell).
  var NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
  TS.csvCell = function (value) {
    var text = value === null || value === undefined ? "" : String(value);
    if (/^[=+\-@\t\r]/.test(text) && !NUMBER.test(text)) text = "'" + text;
    return '"' + text.replace(/"/g, '""') + '"';
  };

  TS.csv = function (header, rows) {
    return [header].concat(rows).map(function (row) {
      return row.map(TS.csvCell).join(",");
    }).join("\r\n") + "\r\n";
  };

  // Save text as a file (a blob URL made in the page: no network).
  TS.download = function (name, text, type) {
    TS.saveBlob(name, new Blob(["\ufeff" + text], { type: type || "text/csv;charset=utf-8" }));
  };

  TS.saveBlob = function (name, blob) {
    var link = TS.element("a");
    link.href = URL.createObjectURL(blob);
    link.download = name;
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 0);
  };

  // ---- Figures as files: an SVG of the page as a standalone SVG (its colours are
  // presentation attributes, so it is the light figure whatever the screen's scheme; links
  // unwrapped, a white background), and as a PNG drawn from it at twice its size (an image
  // from a data: address, which the page's Content-Security-Policy allows).
  var SVG = "http://www.w3.org/2000/svg";
  TS.svgNode = function (tag, attributes, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  };

  TS.svgText = function (svg) {
    var clone = svg.cloneNode(true);
    clone.removeAttribute("class");
    clone.removeAttribute("id");
    clone.setAttribute("xmlns", SVG);
    // What the page hides (the rows of a chart not chosen) is not in the figure.
    Array.prototype.forEach.call(clone.querySelectorAll(".off"), function (node) { node.remove(); });
    Array.prototype.forEach.call(clone.querySelectorAll("a"), function (link) {
      while (link.firstChild) link.parentNode.insertBefore(link.firstChild, link);
      link.remove();
    });
    var box = (clone.getAttribute("viewBox") || "0 0 0 0").split(/\s+/);
    clone.insertBefore(TS.svgNode("rect", { x: box[0], y: box[1], width: box[2], height: box[3], fill: "#ffffff" }), clone.firstChild);
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(clone);
  };

  TS.svgToPng = function (text, done) {
    var image = new Image();
    image.onload = function () {
      var canvas = document.createElement("canvas");
      canvas.width = 2 * image.naturalWidth;
      canvas.height = 2 * image.naturalHeight;
      var context = canvas.getContext("2d");
      context.scale(2, 2);
      context.drawImage(image, 0, 0);
      canvas.toBlob(done, "image/png");
    };
    image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
  };

  // Buttons under a figure (p.figure-tools: data-figure its id, data-name the file's name):
  // SVG and PNG. `converters[tag]` turns a figure that is not an SVG (the heatmap's table)
  // into one.
  TS.figureTools = function (root, converters) {
    root.querySelectorAll(".figure-tools").forEach(function (tools) {
      tools.addEventListener("click", function (event) {
        var button = event.target.closest("button[data-format]");
        if (!button) return;
        var figure = document.getElementById(tools.getAttribute("data-figure"));
        var svg = figure.tagName.toLowerCase() === "svg" ? figure : converters[figure.tagName.toLowerCase()](figure);
        var text = TS.svgText(svg);
        var name = tools.getAttribute("data-name");
        if (button.getAttribute("data-format") === "svg") {
          TS.saveBlob(name + ".svg", new Blob([text], { type: "image/svg+xml" }));
        } else {
          TS.svgToPng(text, function (blob) { TS.saveBlob(name + ".png", blob); });
        }
      });
    });
  };

  // ---- The filter state in the address: #<target>?name=value&… (names, not indices).
  TS.readState = function (hash) {
    var text = (hash === undefined ? location.hash : hash).replace(/^#/, "");
    var at = text.indexOf("?");
    if (at < 0) return null;
    var state = {};
    new URLSearchParams(text.slice(at + 1)).forEach(function (value, key) { state[key] = value; });
    return { target: decodeURIComponent(text.slice(0, at)), state: state };
  };

  TS.stateHash = function (target, state) {
    var query = new URLSearchParams();
    Object.keys(state).forEach(function (key) {
      if (state[key] !== "" && state[key] !== null && state[key] !== undefined) query.set(key, state[key]);
    });
    return "#" + target + "?" + query.toString().replace(/\+/g, "%20");
  };

  // Record a view: a new history entry (push) or the current one (replace). The entry left
  // behind keeps its scroll position (`scrollY`, read before the view changed the page), so
  // Back returns to where the reader was.
  TS.record = function (hash, push, scrollY) {
    if (hash === location.hash) return;
    if (push) {
      history.replaceState({ scrollY: scrollY === undefined ? window.scrollY : scrollY }, "", location.href);
      history.pushState({ scrollY: null }, "", hash);
    } else {
      history.replaceState(history.state, "", hash);
    }
  };

  // Links to a view (#<target>?…) anywhere in the page: `open(target, state)` shows the
  // view and returns true when it knows the target, and the page is not reloaded. A click
  // asking for a new tab or window (a modifier key, another button) is left to the browser.
  TS.onViewLink = function (open) {
    document.addEventListener("click", function (event) {
      var link = event.target.closest("a[href^='#']");
      if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      var parsed = TS.readState(link.getAttribute("href"));
      if (parsed && open(parsed.target, parsed.state)) event.preventDefault();
    });
  };

  // ---- "Show more": append the next `size` of `entries` after the `shown` ones, each
  // drawn by `draw`, to `into`; `button` says how many are left (hidden when none are).
  // Returns how many are shown now.
  TS.showMore = function (entries, shown, size, draw, into, button) {
    var fragment = document.createDocumentFragment();
    var next = entries.slice(shown, shown + size);
    next.forEach(function (entry) { fragment.appendChild(draw(entry)); });
    into.appendChild(fragment);
    shown += next.length;
    var rest = entries.length - shown;
    button.hidden = rest <= 0;
    button.textContent = "show " + Math.min(size, rest) + " more (" + TS.number(rest) + " left)";
    return shown;
  };

  // ---- Sortable tables: a click on a column head's button sorts by that column, again
  // reverses. Rows keep their groups: a tbody, or a category row with the rows under it
  // (table.grouped); average rows stay last. Values: the cell's data-v, else its number.
  function cellValue(row, column) {
    var cell = row.children[column];
    if (!cell) return null;
    var raw = cell.hasAttribute("data-v") ? cell.getAttribute("data-v") : cell.textContent;
    var value = parseFloat(String(raw).replace(/,/g, ""));
    return isNaN(value) ? String(raw).trim().toLowerCase() : value;
  }

  function compare(a, b, direction) {
    if (a === b) return 0;
    if (a === null || a === "–" || a === "") return 1;
    if (b === null || b === "–" || b === "") return -1;
    if (typeof a !== typeof b) return typeof a === "number" ? -1 : 1;
    return (a < b ? -1 : 1) * direction;
  }

  TS.sortTable = function (table, column, direction) {
    var grouped = table.classList.contains("grouped");
    Array.prototype.forEach.call(table.tBodies, function (body) {
      var rows = Array.prototype.slice.call(body.rows);
      var fixedTop = rows.filter(function (r) { return r.classList.contains("group"); });
      var fixedEnd = rows.filter(function (r) { return r.classList.contains("average"); });
      var movable = rows.filter(function (r) { return fixedTop.indexOf(r) < 0 && fixedEnd.indexOf(r) < 0; });
      var groups = [];
      movable.forEach(function (row) {
        if (!grouped || row.classList.contains("category") || !groups.length) groups.push({ head: row, rows: [] });
        else groups[groups.length - 1].rows.push(row);
      });
      var order = function (a, b) { return compare(cellValue(a, column), cellValue(b, column), direction); };
      groups.sort(function (a, b) { return order(a.head, b.head); });
      var fragment = document.createDocumentFragment();
      fixedTop.forEach(function (r) { fragment.appendChild(r); });
      groups.forEach(function (group) {
        fragment.appendChild(group.head);
        group.rows.sort(order).forEach(function (r) { fragment.appendChild(r); });
      });
      fixedEnd.forEach(function (r) { fragment.appendChild(r); });
      body.appendChild(fragment);
    });
    var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      th.setAttribute("aria-sort", i === column ? (direction > 0 ? "ascending" : "descending") : "none");
    });
  };

  TS.sortable = function (table) {
    var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;
    Array.prototype.forEach.call(heads, function (th, column) {
      var button = th.querySelector("button.sort");
      if (!button) return;
      button.addEventListener("click", function (event) {
        event.stopPropagation();
        var current = th.getAttribute("aria-sort");
        // Names sort A→Z first; numbers highest first.
        var first = column === 0 ? 1 : -1;
        var direction = current === "none" || !current ? first : (current === "ascending" ? -1 : 1);
        TS.sortTable(table, column, direction);
      });
    });
  };

  window.TS = TS;
})();
