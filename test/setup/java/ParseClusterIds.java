// Hands each cluster id on the command line to `kafka-storage format`'s own argument parser
// (kafka.tools.StorageTool.parseArguments) and to Kafka's Uuid parser, in one JVM, and prints
// "accepted N". The first id either refuses ends the run with the parser's exception.
// Run as a single-file program: java -cp "<kafka libs>/*" ParseClusterIds.java ID...
public class ParseClusterIds {
  public static void main(String[] ids) throws Exception {
    for (String id : ids) {
      kafka.tools.StorageTool.parseArguments(new String[] {"format", "--cluster-id", id, "-c", "server.properties"});
      org.apache.kafka.common.Uuid.fromString(id);
    }
    System.out.println("accepted " + ids.length);
  }
}
