import type { Panel, RowPanel, VariableModel } from "@grafana/schema";

/**
 * The dashboard's building blocks: every panel is a Prometheus time series on the dashboard's
 * `$datasource`, in rows of two half-width panels under a full-width row header. One helper per
 * kind, so a panel says only what differs (title, unit, queries) and the layout (ids, grid
 * positions) follows from the order; typed by Grafana's published schema (@grafana/schema).
 */

const DATASOURCE = { type: "prometheus", uid: "${datasource}" };
const PANEL_HEIGHT = 8;
const HALF_WIDTH = 12;

/** A section header; `layout` gives it its id and place. */
export type RowSpec = { kind: "row"; title: string };

/** A time series: its title, the unit of its y axis, and its queries as [PromQL, legend] pairs (refIds A, B, …). */
export type TimeseriesSpec = {
  kind: "timeseries";
  title: string;
  description?: string;
  unit: string;
  targets: [expr: string, legendFormat: string][];
};

export const row = (title: string): RowSpec => ({ kind: "row", title });

export const timeseries = (spec: Omit<TimeseriesSpec, "kind">): TimeseriesSpec => ({ kind: "timeseries", ...spec });

/**
 * Places the panels in order: a row takes the full width and one unit of height; time series fill
 * two columns, a new line every second one (and after a row). Ids count from 1 in the same order.
 */
export function layout(specs: (RowSpec | TimeseriesSpec)[]): (Panel | RowPanel)[] {
  let y = 0;
  let column = 0;
  return specs.map((spec, index) => {
    const id = index + 1;
    if (spec.kind === "row") {
      if (column > 0) y += PANEL_HEIGHT;
      column = 0;
      const panel: RowPanel = {
        type: "row",
        title: spec.title,
        collapsed: false,
        gridPos: { h: 1, w: 24, x: 0, y },
        id,
        panels: [],
      };
      y += 1;
      return panel;
    }
    const panel: Panel = {
      id,
      type: "timeseries",
      title: spec.title,
      description: spec.description ?? "",
      datasource: DATASOURCE,
      gridPos: { h: PANEL_HEIGHT, w: HALF_WIDTH, x: column * HALF_WIDTH, y },
      fieldConfig: { defaults: { unit: spec.unit }, overrides: [] },
      options: {
        legend: { displayMode: "list", placement: "bottom", showLegend: true },
        tooltip: { mode: "multi", sort: "desc" },
      },
      targets: spec.targets.map(([expr, legendFormat], i) => ({
        refId: String.fromCharCode(65 + i),
        datasource: DATASOURCE,
        expr,
        legendFormat,
      })),
    };
    column = (column + 1) % 2;
    if (column === 0) y += PANEL_HEIGHT;
    return panel;
  });
}

/** A multi-select variable listing the values of a label (`label_values(<metric>, <label>)`), "All" included. */
export function labelValuesVariable(name: string, label: string, query: string): VariableModel {
  return {
    name,
    type: "query",
    label,
    datasource: DATASOURCE,
    query: { query, refId: name },
    includeAll: true,
    multi: true,
    options: [],
    refresh: 2,
    regex: "",
    hide: 0,
  };
}
