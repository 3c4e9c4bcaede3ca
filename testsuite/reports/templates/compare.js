// testsuite comparison page: the row shown in the chart, and the list of changed items.
// Data: <script type="application/json" id="changes-data"> with columns and rows (see
// html.comparison_html). Everything from the data is inserted with textContent.
(function () {
  "use strict";
  var PAGE = 50;

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function option(select, value, text) {
    var node = element("option", "", text);
    node.value = value;
    select.appendChild(node);
  }

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
          other.classList.toggle("on", other.getAttribute("data-system") ===
            line.getAttribute("data-system"));
        });
      });
      line.addEventListener("mouseleave", function () { svg.classList.remove("focus"); });
    });
  }

  var source = document.getElementById("changes-data");
  var root = document.getElementById("changes-list");
  if (!source || !root) return;
  var data = JSON.parse(source.textContent);
  var column = {};
  data.columns.forEach(function (name, i) { column[name] = i; });
  var form = root.querySelector("form.filters");
  var controls = {
    system: form.elements.namedItem("system"),
    change: form.elements.namedItem("change"),
    category: form.elements.namedItem("category"),
    search: form.elements.namedItem("search")
  };
  var body = root.querySelector("tbody");
  var status = root.querySelector(".status");
  var pager = root.querySelector(".pager");
  var page = 0;
  var matches = [];

  function distinct(name) {
    var seen = {};
    var values = [];
    data.rows.forEach(function (row) {
      var value = row[column[name]];
      if (!(value in seen)) { seen[value] = true; values.push(value); }
    });
    return values;
  }
  option(controls.system, "", "all systems");
  distinct("system").forEach(function (v) { option(controls.system, v, v); });
  option(controls.change, "", "regressed and improved");
  option(controls.change, "regressed", "regressed (pass → fail)");
  option(controls.change, "improved", "improved (fail → pass)");
  option(controls.category, "", "all categories");
  distinct("category").sort().forEach(function (v) { option(controls.category, v, v); });

  function filter() {
    var query = controls.search.value.trim().toLowerCase();
    matches = data.rows.filter(function (row) {
      if (controls.system.value && row[column.system] !== controls.system.value) return false;
      if (controls.change.value && row[column.change] !== controls.change.value) return false;
      if (controls.category.value && row[column.category] !== controls.category.value) return false;
      if (query) {
        return [row[column.item], row[column.before], row[column.after]].some(function (text) {
          return String(text === null ? "" : text).toLowerCase().indexOf(query) >= 0;
        });
      }
      return true;
    });
    page = 0;
    draw();
  }

  function draw() {
    var pages = Math.max(1, Math.ceil(matches.length / PAGE));
    page = Math.min(page, pages - 1);
    var shown = matches.slice(page * PAGE, page * PAGE + PAGE);
    body.textContent = "";
    shown.forEach(function (row) {
      var change = row[column.change];
      var tr = element("tr", "change " + change);
      tr.setAttribute("data-system", row[column.system]);
      tr.setAttribute("data-change", change);
      tr.appendChild(element("td", "", row[column.system]));
      var item = element("td");
      item.appendChild(element("code", "id", row[column.item]));
      item.appendChild(element("div", "note", row[column.category] + " › " + row[column.phenomenon]));
      tr.appendChild(item);
      var cell = element("td");
      cell.appendChild(element("span", "badge " + (change === "regressed" ? "fail" : "pass"), change));
      cell.appendChild(element("div", "note", row[column.from_run] + " → " + row[column.to_run]));
      tr.appendChild(cell);
      tr.appendChild(element("td", "text", row[column.before] === null ? "" : row[column.before]));
      tr.appendChild(element("td", "text", row[column.after] === null ? "" : row[column.after]));
      body.appendChild(tr);
    });
    if (!shown.length) {
      var empty = element("tr");
      var td = element("td", "empty-state", "No changed item matches these filters.");
      td.colSpan = 5;
      empty.appendChild(td);
      body.appendChild(empty);
    }
    status.textContent = matches.length.toLocaleString("en") + " of " +
      data.rows.length.toLocaleString("en") + " changes";
    pager.textContent = "";
    [["‹ previous", page - 1, page > 0], ["next ›", page + 1, page + 1 < pages]].forEach(
      function (spec, i) {
        var button = element("button", "", spec[0]);
        button.type = "button";
        button.disabled = !spec[2];
        button.addEventListener("click", function () { page = spec[1]; draw(); });
        if (i === 1) pager.appendChild(element("span", "pageno", "page " + (page + 1) + " of " + pages));
        pager.appendChild(button);
      });
  }

  var timer = null;
  [controls.system, controls.change, controls.category].forEach(function (control) {
    control.addEventListener("change", filter);
  });
  controls.search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(filter, 150);
  });
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.addEventListener("reset", function () { setTimeout(filter, 0); });
  filter();
})();
