// A Neo4j Community server for MAGS's tests and developers, run by the JDK from source:
//   java -cp <classpath> MagsNeo4j.java HOME PLUGINS PORT PAGECACHE [TEMPORARY_ROOT]
// Bolt on 127.0.0.1 only (PORT 0: a free port), auth on, the password of user neo4j taken from
// the environment (MAGS_NEO4J_INITIAL_PASSWORD, never the command line). Prints
// "READY bolt://127.0.0.1:PORT" once it serves, and stops when its standard input closes:
// the parent that started it exited, however it ended. TEMPORARY_ROOT (a folder holding HOME and
// PLUGINS) is deleted once a server that served has shut down: a parent killed by SIGKILL cannot
// delete it (a start that fails leaves it, and the log in it, to the parent).
// graph_db/backends/local_neo4j.py runs it.
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
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
    if (args.length != 4 && args.length != 5) {
      System.err.println("usage: MagsNeo4j HOME PLUGINS PORT PAGECACHE_MB [TEMPORARY_ROOT]");
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
    Path temporary = args.length == 5 ? Path.of(args[4]) : null;
    AtomicBoolean served = new AtomicBoolean(); // a start that fails keeps its log for the parent
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        dbms.shutdown();
      } finally {
        if (temporary != null && served.get()) {
          delete(temporary);
        }
      }
    }));
    dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
        .executeTransactionally(
            "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
    var api = (GraphDatabaseAPI) dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
    var bolt = api.getDependencyResolver().resolveDependency(ConnectorPortRegister.class)
        .getLocalAddress(ConnectorType.BOLT);
    served.set(true);
    System.out.println("READY bolt://" + bolt);
    System.out.flush();
    while (System.in.read() != -1) {
      // nothing is read from the parent: its end closes the pipe
    }
    System.exit(0);
  }

  // Deepest first; a symbolic link (the plugin jars) is removed, not followed.
  private static void delete(Path root) {
    try (var paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      System.err.println("could not delete " + root + ": " + e);
    }
  }
}
