/** A prom-client metric's `labels(...values)`: the child bound to one label set. */
interface Labelled<C> {
  labels(...values: string[]): C;
}

/**
 * Bound children of prom-client metrics, kept per metric and label values (values in the order of
 * the metric's labelNames). Label values come from the configuration, so the map stays bounded.
 */
export class BoundLabels {
  private readonly byMetric = new Map<object, Map<string, unknown>>();

  get<C>(metric: Labelled<C>, ...values: string[]): C {
    let children = this.byMetric.get(metric);
    if (children === undefined) this.byMetric.set(metric, (children = new Map()));
    const key = values.join('\u0000');
    let child = children.get(key) as C | undefined;
    if (child === undefined) {
      child = metric.labels(...values);
      children.set(key, child);
    }
    return child;
  }
}
