import { Kafka, logLevel } from 'kafkajs'
const k = new Kafka({ clientId: 'x', brokers: ['127.0.0.1:19092'], logLevel: logLevel.NOTHING })
const a = k.admin(); await a.connect()
const ns = process.argv[2]
if (process.argv[3] === 'delete') { const all = (await a.listTopics()).filter(t => t.startsWith(ns + '.')); await a.deleteTopics({ topics: all }); console.log('deleted', all.length) }
else if (process.argv[3] === 'count') { const o = await a.fetchTopicOffsets(ns + '.chain.4663.logs'); const d = await a.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: ns + '.chain.4663.logs', configNames: ['max.message.bytes'] }] }); console.log(JSON.stringify(o), d.resources[0].configEntries[0].configValue) }
else { await a.createTopics({ topics: [{ topic: ns + '.chain.4663.logs', numPartitions: 1 }], waitForLeaders: true }); console.log('created with broker defaults') }
await a.disconnect()
