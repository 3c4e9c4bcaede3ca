// testsuite comparison page: sorting, the row shown in the chart, and the list of changed
// items (filters and sorting over the data, "show more" appends, CSV export, filter state in
// the address). Data: <script type="application/json" id="changes-data"> with columns and
// rows (see html_compare.comparison_html). Everything is inserted with textContent.
(function () {
  "use strict";
  var TS = window.TS;
  var PAGE = 50;
  var TARGET = "changes-list";

  document.querySelectorAll("table.sortable").forEach(TS.sortable);
  TS.figureTools(document, {});
  document.querySelectorAll("input.show-details").forEach(function (box) {
    var table = document.getElementById(box.getAttribute("data-for"));
    box.addEventListener("change", function () { table.classList.toggle("details", box.checked); });
  });

  // The chart shows one table row at a time; hovering a line brings it forward.
  var pick = document.getElementById("chart-row");
  var svg = document.getElementById("slope-chart");
  if (pick && svg) {
    pick.addEventListener("change", function () {
      svg.querySelectorAll(".chart-row").forEach(function (group) {
        group.classList.toggle("off", group.getAttribute("data-key") !== pick.value);
      });
    });
    svg.querySelectorAll(".line").forEach(function (line) {
      line.addEventListener("mouseenter", function () {
        svg.classList.add("focus");
        svg.querySelectorAll(".line").forEach(function (other) {
          other.classList.toggle("on", other.getAttribute("data-system") === line.getAttribute("data-system"));
        });
      });
      line.addEventListener("mouseleave", function () { svg.classList.remove("focus"); });
    });
  }

  var source = document.getElementById("changes-data");
  var root = document.getElementById(TARGET);
  if (!source || !root) return;
  var data = JSON.parse(source.textContent);
  var column = {};
  data.columns.forEach(function (name, i) { column[name] = i; });
  var hasSource = data.rows.some(function (row) { return row[column.source] !== null; });
  var form = root.querySelector("form.filters");
  var names = ["system", "change", "from", "category", "phenomenon", "q"];
  var controls = {};
  names.forEach(function (name) { controls[name] = form.elements.namedItem(name); });
  var table = root.querySelector("table.changes");
  var body = table.querySelector("tbody");
  var status = root.querySelector(".status");
  var more = root.querySelector("button.more");
  var matches = [];
  var shown = 0;
  var item = ""; // the item view: every compared system's change on one item
  var order = null; // [column name, direction]

  function distinct(name) {
    var seen = {};
    var values = [];
    data.rows.forEach(function (row) {
      var value = row[column[name]];
      if (value !== null && !(value in seen)) { seen[value] = true; values.push(value); }
    });
    return values;
  }
  TS.option(controls.system, "", "all systems");
  distinct("system").forEach(function (v) { TS.option(controls.system, v, v); });
  TS.option(controls.change, "", "regressed and improved");
  TS.option(controls.change, "regressed", "regressed (pass → fail)");
  TS.option(controls.change, "improved", "improved (fail → pass)");
  TS.option(controls.from, "", "all runs");
  distinct("from_run").forEach(function (v, i) { TS.option(controls.from, v, v + " → " + distinct("to_run")[i]); });
  TS.option(controls.category, "", "all categories");
  distinct("category").sort().forEach(function (v) { TS.option(controls.category, v, v); });
  function fillPhenomena() {
    var keep = controls.phenomenon.value;
    controls.phenomenon.textContent = "";
    TS.option(controls.phenomenon, "", "all phenomena");
    var seen = {};
    data.rows.forEach(function (row) {
      var p = row[column.phenomenon];
      if (seen[p] || (controls.category.value && row[column.category] !== controls.category.value)) return;
      seen[p] = true;
      TS.option(controls.phenomenon, p, p);
    });
    controls.phenomenon.value = seen[keep] ? keep : "";
  }
  fillPhenomena();

  function text(value) { return value === null || value === undefined ? "" : String(value); }

  function filter() {
    var query = controls.q.value.trim().toLowerCase();
    var wanted = { system: controls.system.value, change: controls.change.value, from_run: controls.from.value,
      category: controls.category.value, phenomenon: controls.phenomenon.value };
    matches = data.rows.filter(function (row) {
      if (item) return row[column.item] === item;
      for (var key in wanted) {
        if (wanted[key] && row[column[key]] !== wanted[key]) return false;
      }
      if (!query) return true;
      return [row[column.item], row[column.source], row[column.before], row[column.after]].some(function (value) {
        return text(value).toLowerCase().indexOf(query) >= 0;
      });
    });
    if (order) {
      var at = column[order[0]];
      matches.sort(function (a, b) { return text(a[at]) < text(b[at]) ? -order[1] : text(a[at]) > text(b[at]) ? order[1] : 0; });
    }
  }

  function row(entry) {
    var change = entry[column.change];
    var tr = TS.element("tr", "change " + change);
    tr.setAttribute("data-system", entry[column.system]);
    tr.setAttribute("data-change", change);
    tr.setAttribute("data-item", entry[column.item]);
    tr.appendChild(TS.element("td", "", entry[column.system]));
    var cell = TS.element("td");
    var link = TS.element("a", "id", entry[column.item]);
    link.href = TS.stateHash(TARGET, { item: entry[column.item] });
    link.title = "item view: every compared system's change on this item";
    cell.appendChild(link);
    cell.appendChild(TS.element("div", "note", entry[column.category] + " › " + entry[column.phenomenon]));
    tr.appendChild(cell);
    var how = TS.element("td");
    how.appendChild(TS.element("span", "badge " + (change === "regressed" ? "fail" : "pass"), change));
    how.appendChild(TS.element("div", "note", entry[column.from_run] + " → " + entry[column.to_run]));
    tr.appendChild(how);
    if (hasSource) tr.appendChild(TS.element("td", "text source", text(entry[column.source])));
    tr.appendChild(TS.element("td", "text", text(entry[column.before])));
    tr.appendChild(TS.element("td", "text", text(entry[column.after])));
    return tr;
  }

  function showMore() {
    shown = TS.showMore(matches, shown, PAGE, row, body, more);
    status.textContent = (item ? "item view " + item + ": " : "") + TS.number(matches.length) +
      " of " + TS.number(data.rows.length) + (data.rows.length === 1 ? " change" : " changes") +
      (matches.length && shown < matches.length ? " (showing " + TS.number(shown) + ")" : "");
    status.setAttribute("data-items", matches.length);
    if (item) {
      status.appendChild(document.createTextNode(" · "));
      var back = TS.element("a", "", "back to the list");
      back.href = TS.stateHash(TARGET, {});
      status.appendChild(back);
    }
  }

  function draw() {
    body.textContent = "";
    shown = 0;
    if (!matches.length) {
      var empty = TS.element("tr");
      var td = TS.element("td", "empty-state", "No changed item matches these filters.");
      td.colSpan = hasSource ? 6 : 5;
      empty.appendChild(td);
      body.appendChild(empty);
    }
    showMore();
  }

  function state() {
    var result = {};
    if (item) return { item: item };
    names.forEach(function (name) { result[name] = controls[name].value; });
    return result;
  }

  function apply(wanted) {
    item = wanted.item && data.rows.some(function (row) { return row[column.item] === wanted.item; }) ? wanted.item : "";
    root.classList.toggle("item-view", Boolean(item));
    names.forEach(function (name) {
      if (name === "phenomenon") return;
      var control = controls[name];
      var value = wanted[name] || "";
      if (control.tagName === "SELECT" && !Array.prototype.some.call(control.options, function (o) { return o.value === value; })) value = "";
      control.value = value;
    });
    fillPhenomena();
    controls.phenomenon.value = wanted.phenomenon || "";
    if (controls.phenomenon.value !== (wanted.phenomenon || "")) controls.phenomenon.value = "";
    filter();
    draw();
  }

  function changed(push) {
    item = "";
    root.classList.remove("item-view");
    filter();
    draw();
    TS.record(TS.stateHash(TARGET, state()), push);
  }

  // Sorting the list sorts the data (not only the rows shown).
  table.querySelectorAll("thead th").forEach(function (th, i) {
    var button = th.querySelector("button.sort");
    if (!button) return;
    var key = ["system", "item", "change"][i];
    button.addEventListener("click", function () {
      var direction = order && order[0] === key ? -order[1] : 1;
      order = [key, direction];
      table.querySelectorAll("thead th").forEach(function (other) { other.setAttribute("aria-sort", "none"); });
      th.setAttribute("aria-sort", direction > 0 ? "ascending" : "descending");
      filter();
      draw();
    });
  });

  controls.category.addEventListener("change", function () { fillPhenomena(); changed(true); });
  ["system", "change", "from", "phenomenon"].forEach(function (name) {
    controls[name].addEventListener("change", function () { changed(true); });
  });
  controls.q.addEventListener("input", TS.debounce(function () { changed(false); }, 200));
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.addEventListener("reset", function (event) {
    event.preventDefault();
    apply({});
    TS.record(TS.stateHash(TARGET, state()), true);
  });
  more.addEventListener("click", showMore);
  form.elements.namedItem("csv").addEventListener("click", function () {
    var header = data.columns.filter(function (name) { return name !== "source" || hasSource; });
    TS.download("testsuite-changes.csv", TS.csv(header, matches.map(function (entry) {
      return header.map(function (name) { return entry[column[name]]; });
    })));
  });

  // Links to a view of the list (the counts above it), Back/Forward and permalinks.
  TS.onViewLink(function (target, wanted) {
    if (target !== TARGET) return false;
    apply(wanted);
    TS.record(TS.stateHash(TARGET, state()), true);
    root.scrollIntoView();
    return true;
  });
  window.addEventListener("popstate", function (event) {
    var parsed = TS.readState();
    if (parsed && parsed.target === TARGET) apply(parsed.state);
    else if (!location.hash) apply({});
    if (event.state && typeof event.state.scrollY === "number") window.scrollTo(0, event.state.scrollY);
  });
  var initial = TS.readState();
  if (initial && initial.target === TARGET) {
    apply(initial.state);
    root.scrollIntoView();
  } else {
    filter();
    draw();
  }
})();
