// A Neo4j Community server for MAGS's tests and developers, run by the JDK from source:
//   java -cp <classpath> MagsNeo4j.java HOME PLUGINS PORT PAGECACHE
// Bolt on 127.0.0.1 only (PORT 0: a free port), auth on, the password of user neo4j taken from
// the environment (MAGS_NEO4J_INITIAL_PASSWORD, never the command line). Prints
// "READY bolt://127.0.0.1:PORT" once it serves, and stops when its standard input closes:
// the parent that started it exited, however it ended. graph_db/backends/local_neo4j.py runs it.
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

public class MagsNeo4j {
  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: MagsNeo4j HOME PLUGINS PORT PAGECACHE_MB");
      System.exit(2);
    }
    String password = System.getenv("MAGS_NEO4J_INITIAL_PASSWORD");
    if (password == null || password.length() < 8) {
      System.err.println("MAGS_NEO4J_INITIAL_PASSWORD must hold a password of 8 or more characters");
      System.exit(2);
    }
    DatabaseManagementService dbms =
        new DatabaseManagementServiceBuilder(Path.of(args[0]))
            .setConfig(BoltConnector.enabled, true)
            .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", Integer.parseInt(args[2])))
            .setConfig(GraphDatabaseSettings.auth_enabled, true)
            .setConfig(GraphDatabaseSettings.plugin_dir, Path.of(args[1]))
            .setConfig(GraphDatabaseSettings.procedure_unrestricted, List.of("gds.*"))
            .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(Long.parseLong(args[3])))
            .setConfig(GraphDatabaseSettings.keep_logical_logs, "2 files")
            .build();
    Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown));
    dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
        .executeTransactionally(
            "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
    var api = (GraphDatabaseAPI) dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    var bolt = api.getDependencyResolver().resolveDependency(ConnectorPortRegister.class)
        .getLocalAddress(ConnectorType.BOLT);
    System.out.println("READY bolt://" + bolt);
    System.out.flush();
    while (System.in.read() != -1) {
      // nothing is read from the parent: its end closes the pipe
    }
    System.exit(0);
  }
}
