import type { Bus } from '../../core/bus/types.ts'
import { AlertEvent } from '../../products/alerts/alert.ts'
import { namespaced, TOPICS } from '../../core/bus/topics.ts'

/** Publish one alert on the bus (any producer: the API's test alert, the alert producers). */
export async function publishAlert(bus: Bus, event: AlertEvent, namespace = ''): Promise<void> {
  await bus.publish(namespaced(namespace, TOPICS.alerts), [{ key: event.target ?? event.kind, value: JSON.stringify(AlertEvent.parse(event)) }])
}
