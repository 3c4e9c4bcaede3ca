// Drill-down of the testsuite HTML report: filters and renders outputs on demand.
// Data: one <script type="application/json" class="drilldown-data"> per language pair.
(function () {
  "use strict";
  var PAGE = 100;
  var NAMES = { p: "pass", f: "fail", w: "warning", m: "missing", "-": "no output" };

  function option(select, value, text) {
    var o = document.createElement("option");
    o.value = value; o.textContent = text; select.appendChild(o);
  }

  function setup(section) {
    var data = JSON.parse(section.querySelector(".drilldown-data").textContent);
    var ui = {
      category: section.querySelector(".f-category"),
      phenomenon: section.querySelector(".f-phenomenon"),
      system: section.querySelector(".f-system"),
      outcome: section.querySelector(".f-outcome"),
      search: section.querySelector(".f-search"),
      body: section.querySelector("table.outputs tbody"),
      count: section.querySelector(".count"),
      more: section.querySelector(".more")
    };
    var shown = PAGE;
    option(ui.category, "", "all categories");
    data.categories.forEach(function (c, i) { option(ui.category, String(i), c); });
    option(ui.system, "", "all systems");
    data.systems.forEach(function (s, i) { option(ui.system, String(i), s); });
    [["", "any outcome"], ["p", "pass"], ["f", "fail"], ["w", "warning"], ["m", "missing"]]
      .forEach(function (o) { option(ui.outcome, o[0], o[1]); });

    function fillPhenomena() {
      var keep = ui.phenomenon.value;
      ui.phenomenon.textContent = "";
      option(ui.phenomenon, "", "all phenomena");
      data.phenomena.forEach(function (p, i) {
        if (ui.category.value === "" || String(p[1]) === ui.category.value) {
          option(ui.phenomenon, String(i), p[0]);
        }
      });
      ui.phenomenon.value = Array.prototype.some.call(ui.phenomenon.options,
        function (o) { return o.value === keep; }) ? keep : "";
    }

    function matches(item) {
      var phen = data.phenomena[item[1]];
      if (ui.category.value !== "" && String(phen[1]) !== ui.category.value) return false;
      if (ui.phenomenon.value !== "" && String(item[1]) !== ui.phenomenon.value) return false;
      var sys = ui.system.value === "" ? null : Number(ui.system.value);
      var want = ui.outcome.value;
      if (want) {
        var codes = sys === null ? item[4] : item[4][sys];
        if (codes.indexOf(want) < 0) return false;
      }
      var query = ui.search.value.trim().toLowerCase();
      if (query) {
        var texts = [item[0], data.strings[item[2]]];
        item[3].forEach(function (s) { if (s >= 0) texts.push(data.strings[s]); });
        if (!texts.some(function (t) { return t.toLowerCase().indexOf(query) >= 0; })) return false;
      }
      return true;
    }

    function row(item) {
      var tr = document.createElement("tr");
      var phen = data.phenomena[item[1]];
      var id = document.createElement("td"); id.className = "id"; id.textContent = item[0];
      var where = document.createElement("td");
      where.textContent = data.categories[phen[1]] + " › " + phen[0];
      var source = document.createElement("td"); source.className = "source";
      source.textContent = data.strings[item[2]];
      var outs = document.createElement("td");
      var sys = ui.system.value === "" ? null : Number(ui.system.value);
      data.systems.forEach(function (name, i) {
        if (sys !== null && i !== sys) return;
        var code = item[4][i];
        var line = document.createElement("span"); line.className = "out " + code;
        var label = document.createElement("span"); label.className = "sys"; label.textContent = name;
        var text = document.createElement("span");
        text.textContent = item[3][i] >= 0 ? data.strings[item[3][i]] : "";
        var badge = document.createElement("span"); badge.className = "badge " + code;
        badge.textContent = NAMES[code];
        line.appendChild(label); line.appendChild(text); line.appendChild(badge);
        outs.appendChild(line);
      });
      [id, where, source, outs].forEach(function (td) { tr.appendChild(td); });
      return tr;
    }

    function render() {
      var hits = data.items.filter(matches);
      var fragment = document.createDocumentFragment();
      hits.slice(0, shown).forEach(function (item) { fragment.appendChild(row(item)); });
      ui.body.textContent = "";
      ui.body.appendChild(fragment);
      ui.count.textContent = hits.length + " of " + data.items.length + " items" +
        (hits.length > shown ? " (showing " + shown + ")" : "");
      ui.more.hidden = hits.length <= shown;
    }

    function refilter() { shown = PAGE; render(); }
    ui.category.addEventListener("change", function () { fillPhenomena(); refilter(); });
    [ui.phenomenon, ui.system, ui.outcome].forEach(function (el) {
      el.addEventListener("change", refilter);
    });
    ui.search.addEventListener("input", refilter);
    ui.more.addEventListener("click", function () { shown += PAGE; render(); });

    // A heatmap cell opens the drill-down on that phenomenon and system.
    section.querySelectorAll("table.heatmap td.cell").forEach(function (cell) {
      cell.addEventListener("click", function () {
        ui.category.value = ""; fillPhenomena();
        ui.phenomenon.value = cell.getAttribute("data-phenomenon");
        ui.system.value = cell.getAttribute("data-system");
        refilter();
        section.querySelector(".drilldown").scrollIntoView();
      });
    });
    fillPhenomena();
    render();
  }

  document.querySelectorAll("section.pair").forEach(setup);
})();
