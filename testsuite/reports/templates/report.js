// testsuite score report: links from tables, heatmap and chart to the drill-down (by name),
// tooltips and optional statistics from the scores, sorting, the keyboard grid of the
// heatmap, and the address as the filter state (permalinks, Back and Forward).
(function () {
  "use strict";
  var TS = window.TS;
  var drilldowns = {}; // by target id

  // ---- Tooltips and details from the scores' statistics (report-stats JSON). A cell is
  // [accuracy, first, passes, lower, upper, ci_low, ci_high, p_value, rank_best,
  // rank_worst, p_adjusted, p_mc_error]; a missing entry at the end means the scores do not
  // have that value (p_adjusted: only with a correction; p_mc_error: bootstrap rows).
  var ACCURACY = 0, FIRST = 1, PASSES = 2, LOWER = 3, UPPER = 4, CI_LOW = 5, CI_HIGH = 6, P = 7,
    RANK_BEST = 8, RANK_WORST = 9, P_ADJUSTED = 10, P_MC_ERROR = 11;
  function field(cell, at) { return cell && cell[at] !== undefined ? cell[at] : null; }
  function rank(cell) {
    var best = field(cell, RANK_BEST), worst = field(cell, RANK_WORST);
    return best === worst ? String(best) : best + "–" + worst;
  }

  function describe(system, label, items, located, cell) {
    var text = system + " · " + label + ": ";
    if (!cell || !cell.length || !items) return text + "no item entered the scores";
    text += TS.percent(cell[ACCURACY]) + " %";
    if (field(cell, PASSES) !== null) text += " (" + TS.number(cell[PASSES]) + " of " + TS.number(items) + " items passed)";
    else text += " (average over " + TS.number(items) + " items)";
    if (field(cell, CI_LOW) !== null) text += "\n95 % interval: " + TS.percent(cell[CI_LOW]) + "–" + TS.percent(cell[CI_HIGH]) + " %";
    text += "\n" + (cell[FIRST] ? "in the first performance cluster" : "not in the first performance cluster");
    // With a correction the adjusted p-value decides the cluster: it is the one shown.
    if (field(cell, P_ADJUSTED) !== null) text += " (adjusted " + TS.pText(cell[P_ADJUSTED]) + ", the row's best against this system)";
    else if (field(cell, P) !== null) text += " (" + TS.pText(cell[P]) + ", the row's best against this system)";
    if (field(cell, P_MC_ERROR) !== null) text += "\n" + (field(cell, P_ADJUSTED) !== null ? "Monte Carlo standard error of the unadjusted bootstrap p-value: " : "bootstrap p-value ± ") + Number(cell[P_MC_ERROR]).toPrecision(2) + (field(cell, P_ADJUSTED) !== null ? "" : " (Monte Carlo standard error)");
    if (field(cell, RANK_BEST) !== null) text += "\nrank " + rank(cell);
    if (located !== null && located > items) text += "\n" + TS.number(located - items) + " of " + TS.number(located) + " located items left out of the scores";
    if (field(cell, LOWER) !== null && field(cell, UPPER) !== null && cell[LOWER] !== cell[UPPER]) {
      text += "\nopen warnings could move it between " + TS.percent(cell[LOWER]) + " and " + TS.percent(cell[UPPER]) + " %";
    }
    return text;
  }

  // Title of a cell made when it is first hovered or focused (thousands of title attributes
  // would weigh more than the data).
  function tooltips(table, stats, systems) {
    function fill(event) {
      var cell = event.target.closest("td");
      if (!cell || cell.title || !cell.parentElement.hasAttribute("data-row")) return;
      var row = cell.parentElement;
      var entry = stats[Number(row.getAttribute("data-row"))];
      var label = row.querySelector("th").textContent;
      var column = cell.cellIndex - 2;
      if (cell.classList.contains("num")) {
        cell.title = TS.number(entry[0]) + " items scored" + (entry[1] !== null ? " of " + TS.number(entry[1]) + " located (" + TS.number(entry[1] - entry[0]) + " left out of the scores)" : "");
      } else if (column >= 0 && column < systems.length) {
        cell.title = describe(systems[column], label, entry[0], entry[1], entry[2][column]);
      }
    }
    table.addEventListener("mouseover", fill);
    table.addEventListener("focusin", fill);
  }

  // The optional statistics in the cells: items left out, intervals and rank ranges.
  function details(table, stats, on) {
    table.classList.toggle("details", on);
    if (!on || table.getAttribute("data-detailed")) return;
    table.setAttribute("data-detailed", "1");
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var entry = stats[Number(row.getAttribute("data-row"))];
      if (!entry) return;
      var count = row.querySelector("td.num");
      if (entry[1] !== null && entry[1] > entry[0]) count.appendChild(TS.element("span", "extra", "−" + (entry[1] - entry[0])));
      Array.prototype.forEach.call(row.querySelectorAll("td.acc"), function (td, s) {
        var cell = entry[2][s];
        if (!cell) return;
        var parts = [];
        if (field(cell, CI_LOW) !== null) parts.push(TS.percent(cell[CI_LOW], 0) + "–" + TS.percent(cell[CI_HIGH], 0));
        if (field(cell, RANK_BEST) !== null) parts.push("#" + rank(cell));
        if (parts.length) td.appendChild(TS.element("span", "extra", parts.join(" ")));
      });
    });
  }

  // ---- A table of numbers as a keyboard grid (the heatmap, the paper tables): one tab
  // stop, arrow keys move, Enter opens; a click opens too. `kind` is the cells' class.
  function grid(table, kind, open) {
    var selector = "td." + kind;
    var cells = function () { return table.querySelectorAll(selector); };
    var current = cells()[0];
    if (!current) return;
    current.tabIndex = 0;
    function focus(cell) {
      if (!cell) return;
      current.tabIndex = -1;
      cell.tabIndex = 0;
      current = cell;
      cell.focus();
    }
    function rowOf(cell, step) {
      var rows = Array.prototype.filter.call(table.querySelectorAll("tbody tr"), function (r) { return r.querySelector(selector); });
      var at = rows.indexOf(cell.parentElement) + step;
      return at >= 0 && at < rows.length ? rows[at] : null;
    }
    table.addEventListener("keydown", function (event) {
      var cell = event.target.closest(selector);
      if (!cell) return;
      var row = cell.parentElement, column = Array.prototype.indexOf.call(row.querySelectorAll(selector), cell);
      var next = null;
      if (event.key === "ArrowRight") next = cell.nextElementSibling && cell.nextElementSibling.matches(selector) ? cell.nextElementSibling : null;
      else if (event.key === "ArrowLeft") next = cell.previousElementSibling && cell.previousElementSibling.matches(selector) ? cell.previousElementSibling : null;
      else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        var other = rowOf(cell, event.key === "ArrowDown" ? 1 : -1);
        next = other && other.querySelectorAll(selector)[column];
      } else if (event.key === "Home") next = row.querySelector(selector);
      else if (event.key === "End") next = row.querySelectorAll(selector)[row.querySelectorAll(selector).length - 1];
      else if (event.key === "Enter" || event.key === " ") { event.preventDefault(); open(cell); return; }
      else return;
      event.preventDefault();
      focus(next);
    });
    table.addEventListener("click", function (event) {
      var cell = event.target.closest(selector);
      if (!cell) return;
      if (cell !== current) { current.tabIndex = -1; cell.tabIndex = 0; current = cell; }
      open(cell);
    });
  }

  // Follow one system in the category chart (-1: none): its dots, whiskers and names.
  function highlight(section, system) {
    section.querySelectorAll("svg.dotplot").forEach(function (svg) {
      svg.classList.toggle("focus", system >= 0);
      svg.querySelectorAll("[data-s]").forEach(function (node) {
        node.classList.toggle("on", Number(node.getAttribute("data-s")) === system);
      });
    });
  }

  // The heatmap as a standalone SVG figure (for its download), drawn from the table as it
  // is shown: names, counts, each cell's value and colours, the category headings.
  function heatmapSvg(table) {
    var systems = Array.prototype.map.call(table.querySelectorAll("thead th.sys"), function (th) { return th.textContent; });
    var label = 260, count = 34, cell = 28, line = 16, head = 8 + 7 * Math.max.apply(null, systems.map(function (n) { return n.length; }));
    var width = label + count + cell * systems.length + 10;
    var svg = TS.svgNode("svg", { "font-family": "system-ui, sans-serif", "font-size": "10" });
    var y = head;
    systems.forEach(function (name, i) {
      var x = label + count + cell * (i + 0.5) + 3;
      svg.appendChild(TS.svgNode("text", { x: x, y: head - 6, transform: "rotate(-90 " + x + " " + (head - 6) + ")", fill: "#1f2328" }, name));
    });
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        if (row.classList.contains("group")) {
          y += 6;
          svg.appendChild(TS.svgNode("text", { x: 4, y: y + 12, "font-weight": "600", fill: "#1f2328" }, row.textContent.trim()));
          y += line;
          return;
        }
        var th = row.querySelector("th");
        svg.appendChild(TS.svgNode("text", { x: label - 6, y: y + 12, "text-anchor": "end", fill: "#1f2328",
          "font-style": row.classList.contains("dropped") ? "italic" : "normal" }, th.textContent));
        svg.appendChild(TS.svgNode("text", { x: label + count - 6, y: y + 12, "text-anchor": "end", fill: "#59636e" }, row.querySelector("td.num").textContent));
        row.querySelectorAll("td.cell").forEach(function (td, i) {
          var style = getComputedStyle(td);
          var x = label + count + cell * i;
          var na = td.classList.contains("na");
          svg.appendChild(TS.svgNode("rect", { x: x, y: y, width: cell - 1, height: line - 1, fill: na ? "#eeeeee" : style.backgroundColor }));
          svg.appendChild(TS.svgNode("text", { x: x + cell / 2, y: y + 11.5, "text-anchor": "middle", fill: na ? "#8c959f" : style.color }, td.textContent));
        });
        y += line;
      });
    });
    var height = y + 8;
    svg.setAttribute("viewBox", "0 0 " + width + " " + height);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    return svg;
  }

  function connect(section) {
    var drilldown = new TS.Drilldown(section);
    drilldowns[drilldown.target] = drilldown;
    var systems = drilldown.data.systems;
    drilldown.onupdate = function (system) { highlight(section, system); };
    highlight(section, -1);

    // The statistics of each table (its data-stats names them), parsed once.
    var stats = drilldown.stats;
    function statsOf(table) { return stats[table.getAttribute("data-stats")]; }

    section.querySelectorAll("table.sortable").forEach(TS.sortable);
    section.querySelectorAll("table[data-stats]").forEach(function (table) {
      tooltips(table, statsOf(table), systems);
    });
    section.querySelectorAll("input.show-details").forEach(function (box) {
      var table = document.getElementById(box.getAttribute("data-for"));
      box.addEventListener("change", function () { details(table, statsOf(table), box.checked); });
    });

    // Cells of the heatmap and of the paper tables open the items behind their number: the
    // row's category and phenomenon (none for an average row) and the column's system, by
    // name (the view of html.behind_link; the drill-down lists the scored items first).
    // Focus follows to the list, where the reader now is.
    function behind(kind) {
      return function (table) {
        var names = Array.prototype.map.call(table.querySelectorAll("thead th.sys:not(.avg)"), function (th) { return th.textContent; });
        grid(table, kind, function (cell) {
          var row = cell.parentElement;
          var column = Array.prototype.indexOf.call(row.querySelectorAll("td." + kind), cell);
          drilldown.show({ category: row.getAttribute("data-category") || "", phenomenon: row.getAttribute("data-phenomenon") || "",
            system: names[column], average: row.getAttribute("data-average") || "" });
          drilldown.status.focus({ preventScroll: true });
        });
      };
    }
    section.querySelectorAll("table.heatmap").forEach(behind("cell"));
    section.querySelectorAll("table.paper").forEach(behind("acc"));

    TS.figureTools(section, { table: heatmapSvg });

    // The category chart: hover follows a system.
    section.querySelectorAll("svg.dotplot [data-s]").forEach(function (node) {
      var system = Number(node.getAttribute("data-s"));
      node.addEventListener("mouseenter", function () { highlight(section, system); });
      node.addEventListener("mouseleave", function () {
        var value = drilldown.state().system;
        highlight(section, value ? systems.indexOf(value) : -1);
      });
    });
  }

  // Links to a view of a drill-down anywhere in the page: applied without a reload.
  TS.onViewLink(function (target, state) {
    if (!drilldowns[target]) return false;
    drilldowns[target].show(state);
    return true;
  });

  // Back and Forward (and an edited address): the address is the state.
  function restore(event) {
    var parsed = TS.readState();
    var scroll = event && event.state && typeof event.state.scrollY === "number" ? event.state.scrollY : null;
    if (parsed && drilldowns[parsed.target]) {
      var drilldown = drilldowns[parsed.target];
      if (drilldown.hash() !== location.hash) drilldown.apply(parsed.state);
      if (scroll === null) drilldown.heading.scrollIntoView();
    } else if (!location.hash) {
      Object.keys(drilldowns).forEach(function (key) {
        var drilldown = drilldowns[key];
        if (drilldown.hash() !== TS.stateHash(key, {})) drilldown.apply({});
      });
    }
    if (scroll !== null) window.scrollTo(0, scroll);
  }

  document.querySelectorAll("section.pair").forEach(connect);
  // For measuring how soon the page is usable (bench/, the browser test).
  if (performance.mark) performance.mark("testsuite:first-rows");
  // popstate comes with Back, Forward and every change of the address's fragment.
  window.addEventListener("popstate", restore);
  // Opened from a permalink: show that view.
  if (TS.readState()) restore(null);
})();
