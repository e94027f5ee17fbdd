package dev.cetp.testkit.internal;

import static org.robolectric.Shadows.shadowOf;

import android.content.ComponentName;
import android.content.ContentProvider;
import android.content.IntentFilter;
import android.content.pm.ActivityInfo;
import android.content.pm.ApplicationInfo;
import android.content.pm.ComponentInfo;
import android.content.pm.PackageInfo;
import android.content.pm.PackageManager;
import android.content.pm.PermissionInfo;
import android.content.pm.ProviderInfo;
import android.content.pm.ServiceInfo;
import android.os.Bundle;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.robolectric.Robolectric;
import org.robolectric.RuntimeEnvironment;
import org.robolectric.shadows.ShadowPackageManager;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * Installs an app described by a plain-text {@code AndroidManifest.xml} into Robolectric's
 * PackageManager, the way the platform's package parser would have: a {@link PackageInfo} with its
 * {@link ApplicationInfo}, services, providers, activities, receivers, permissions and requested
 * permissions; meta-data typed as aapt types it (see {@link #metaDataValue}; {@code android:resource}
 * as the id of the resource it names, in the running app's resources); every component's
 * intent filters registered so {@code queryIntentServices}/{@code queryIntentActivities}/{@code
 * queryBroadcastReceivers} resolve them.
 *
 * <p>Use {@link #parse} to get the model without touching Robolectric's state, {@link #install} to
 * install it, then {@link Installed#startProviders()} to instantiate the declared ContentProvider
 * classes (loaded by name from the test classpath, e.g. a bundle's app.jar) so that {@code
 * ContentResolver.call(authority, ...)} reaches them.
 */
public final class ManifestInstaller {
  /** The {@code android:} attribute namespace. */
  public static final String ANDROID_NS = "http://schemas.android.com/apk/res/android";

  /** UID given to installed apps unless {@link Options#uid} says otherwise. */
  public static final int DEFAULT_APP_UID = 10_500;

  private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^}]*)}");

  /** {@code @[package:]type/name}, as {@code android:resource} refers to a resource. */
  private static final Pattern RESOURCE_REFERENCE =
      Pattern.compile("@(?:([A-Za-z][\\w.]*):)?([a-z][a-z-]*)/([\\w.]+)");

  private ManifestInstaller() {}

  /** Parse options. */
  public static final class Options {
    int uid = DEFAULT_APP_UID;
    String packageName;
    int defaultTargetSdk = 34;
    final Map<String, String> placeholders = new LinkedHashMap<>();

    /** The UID to install the app under (default {@link #DEFAULT_APP_UID}). */
    public Options uid(int uid) {
      this.uid = uid;
      return this;
    }

    /** Package to use when the manifest has no {@code package} attribute (AGP namespace style). */
    public Options packageName(String packageName) {
      this.packageName = packageName;
      return this;
    }

    /** Value for a Gradle-style {@code ${name}} manifest placeholder. */
    public Options placeholder(String name, String value) {
      placeholders.put(name, value);
      return this;
    }
  }

  /** A parsed manifest: the PackageInfo to install plus what PackageInfo cannot hold. */
  public static final class Parsed {
    /** The package, its application and components. */
    public final PackageInfo packageInfo;
    /** Intent filters per component, in manifest order. */
    public final Map<ComponentName, List<IntentFilter>> activityFilters = new LinkedHashMap<>();
    /** Intent filters per service. */
    public final Map<ComponentName, List<IntentFilter>> serviceFilters = new LinkedHashMap<>();
    /** Intent filters per receiver. */
    public final Map<ComponentName, List<IntentFilter>> receiverFilters = new LinkedHashMap<>();
    /** The permissions the manifest declares. */
    public final List<PermissionInfo> permissions = new ArrayList<>();

    Parsed(PackageInfo packageInfo) {
      this.packageInfo = packageInfo;
    }

    /** The package name (the manifest's, or {@code Options.packageName}). */
    public String packageName() {
      return packageInfo.packageName;
    }

    /** The provider serving {@code authority} (one of its ';'-separated authorities). */
    public ProviderInfo provider(String authority) {
      if (packageInfo.providers != null) {
        for (ProviderInfo p : packageInfo.providers) {
          for (String a : p.authority.split(";")) {
            if (a.equals(authority)) {
              return p;
            }
          }
        }
      }
      throw new IllegalArgumentException(
          "No <provider> with authority '" + authority + "' in " + packageName());
    }

    /** The service of class {@code className}; fails if the manifest has none. */
    public ServiceInfo service(String className) {
      for (ServiceInfo s : nonNull(packageInfo.services)) {
        if (s.name.equals(className)) {
          return s;
        }
      }
      throw new IllegalArgumentException("No <service> " + className + " in " + packageName());
    }

    /** Installs into the PackageManager of Robolectric's current application. */
    public Installed install() {
      return install(RuntimeEnvironment.getApplication().getPackageManager());
    }

    /** Installs into {@code pm} (see {@link #install()}). */
    public Installed install(PackageManager pm) {
      if (isTheTestApplication()) {
        // Binary-resources mode (a host bundle's test_config.properties): Robolectric already
        // installed this app, parsed by the platform's PackageParser from the bundle's
        // aapt-compiled resource package, as the test application itself (its UID is
        // Process.myUid()). Installing the text model over it would replace what the platform
        // parsed.
        return new Installed(this, pm);
      }
      ShadowPackageManager spm = shadowOf(pm);
      // installPackage() stores a PackageInfo but does not index its components, and intent
      // filters can only be attached to indexed components. addOrUpdate*() indexes a component,
      // but only when it is new to the package: so install the package without components, then
      // add each one.
      PackageInfo bare = new PackageInfo();
      bare.packageName = packageInfo.packageName;
      bare.versionName = packageInfo.versionName;
      bare.setLongVersionCode(packageInfo.getLongVersionCode());
      bare.applicationInfo = packageInfo.applicationInfo;
      bare.permissions = packageInfo.permissions;
      bare.requestedPermissions = packageInfo.requestedPermissions;
      bare.requestedPermissionsFlags = packageInfo.requestedPermissionsFlags;
      spm.installPackage(bare);
      for (PermissionInfo p : permissions) {
        spm.addPermissionInfo(p);
      }
      nonNull(packageInfo.activities).forEach(spm::addOrUpdateActivity);
      nonNull(packageInfo.services).forEach(spm::addOrUpdateService);
      nonNull(packageInfo.receivers).forEach(spm::addOrUpdateReceiver);
      nonNull(packageInfo.providers).forEach(spm::addOrUpdateProvider);
      activityFilters.forEach((c, fs) -> fs.forEach(f -> spm.addIntentFilterForActivity(c, f)));
      serviceFilters.forEach((c, fs) -> fs.forEach(f -> spm.addIntentFilterForService(c, f)));
      receiverFilters.forEach((c, fs) -> fs.forEach(f -> spm.addIntentFilterForReceiver(c, f)));
      spm.setPackagesForUid(packageInfo.applicationInfo.uid, packageName());
      return new Installed(this, null);
    }

    /** Whether this is the app Robolectric runs the test as (binary-resources mode). */
    public boolean isTheTestApplication() {
      return packageName().equals(RuntimeEnvironment.getApplication().getPackageName());
    }
  }

  /**
   * An installed app; can bring up its ContentProviders. When the app is the test application
   * (binary-resources mode), its providers are the ones the platform's PackageParser produced.
   */
  public static final class Installed {
    /** What was installed. */
    public final Parsed manifest;
    private final PackageManager platform;
    private final Map<String, ContentProvider> started = new LinkedHashMap<>();

    Installed(Parsed manifest, PackageManager platform) {
      this.manifest = manifest;
      this.platform = platform;
    }

    /** The installed package. */
    public PackageInfo packageInfo() {
      return manifest.packageInfo;
    }

    /**
     * Creates every declared provider, highest {@code initOrder} first (as the platform does),
     * and returns them by class name.
     */
    public Map<String, ContentProvider> startProviders() {
      List<ProviderInfo> providers = new ArrayList<>(nonNull(manifest.packageInfo.providers));
      providers.sort((a, b) -> Integer.compare(b.initOrder, a.initOrder));
      for (ProviderInfo p : providers) {
        startDeclared(p);
      }
      return Collections.unmodifiableMap(started);
    }

    /** Creates the provider serving {@code authority}. */
    public ContentProvider startProvider(String authority) {
      return startDeclared(manifest.provider(authority));
    }

    /**
     * A copy of the installed entry of the provider serving {@code authority} (meta-data
     * included), to change before {@link #startProvider(ProviderInfo)}.
     */
    @SuppressWarnings("deprecation") // getProviderInfo(ComponentName, int): API 33 flag classes
    public ProviderInfo providerInfo(String authority) {
      ProviderInfo parsed = manifest.provider(authority);
      ProviderInfo info = parsed;
      if (platform != null) {
        try {
          info =
              platform.getProviderInfo(
                  new ComponentName(parsed.packageName, parsed.name), PackageManager.GET_META_DATA);
        } catch (PackageManager.NameNotFoundException e) {
          throw new IllegalStateException(
              parsed.name + " is in the text manifest but not in the installed resource package", e);
        }
      }
      ProviderInfo copy = new ProviderInfo(info);
      copy.metaData = info.metaData == null ? null : new Bundle(info.metaData);
      return copy;
    }

    private ContentProvider startDeclared(ProviderInfo parsed) {
      ContentProvider existing = started.get(parsed.name);
      if (existing != null) {
        return existing;
      }
      return startProvider(providerInfo(parsed.authority.split(";")[0]));
    }

    /** Creates a provider from {@code info} as given (e.g. changed meta-data). */
    public ContentProvider startProvider(ProviderInfo info) {
      Class<? extends ContentProvider> cls;
      try {
        cls =
            Class.forName(info.name, true, ManifestInstaller.class.getClassLoader())
                .asSubclass(ContentProvider.class);
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(
            "Provider class "
                + info.name
                + " is not on the test classpath (is the bundle's app.jar in"
                + " additionalClasspathElements?)",
            e);
      }
      ContentProvider provider = Robolectric.buildContentProvider(cls).create(info).get();
      started.put(info.name, provider);
      return provider;
    }
  }

  /** Parses {@code manifest} with default options. */
  public static Parsed parse(Path manifest) {
    return parse(manifest, new Options());
  }

  /** Parses {@code manifest} with {@code options}. */
  public static Parsed parse(Path manifest, Options options) {
    try (InputStream in = Files.newInputStream(manifest)) {
      return parse(in, manifest.toString(), options);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read " + manifest, e);
    }
  }

  /** Parses then installs into Robolectric's current PackageManager. */
  public static Installed install(Path manifest) {
    return parse(manifest).install();
  }

  /** Parses and installs {@code manifest} with {@code options}. */
  public static Installed install(Path manifest, Options options) {
    return parse(manifest, options).install();
  }

  /** Parses a manifest from {@code in}; {@code source} names it in errors. */
  public static Parsed parse(InputStream in, String source, Options options) {
    Document doc;
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(true);
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      f.setExpandEntityReferences(false);
      DocumentBuilder b = f.newDocumentBuilder();
      b.setErrorHandler(
          new ErrorHandler() {
            @Override
            public void warning(SAXParseException e) {}

            @Override
            public void error(SAXParseException e) throws SAXException {
              throw e;
            }

            @Override
            public void fatalError(SAXParseException e) throws SAXException {
              throw e;
            }
          });
      doc = b.parse(in, source);
    } catch (ParserConfigurationException | SAXException | IOException e) {
      throw new IllegalArgumentException(source + ": not a well-formed manifest: " + e, e);
    }
    return new Reader(source, options).read(doc.getDocumentElement());
  }

  /** One parse; holds the package name and placeholders while walking the tree. */
  private static final class Reader {
    private final String source;
    private final Options options;
    private String pkg;

    Reader(String source, Options options) {
      this.source = source;
      this.options = options;
    }

    Parsed read(Element manifest) {
      if (!"manifest".equals(manifest.getTagName())) {
        throw fail("root element is <" + manifest.getTagName() + ">, expected <manifest>");
      }
      pkg = plain(manifest, "package");
      if (pkg == null) {
        pkg = options.packageName;
      }
      if (pkg == null || pkg.isEmpty()) {
        throw fail("no package attribute and no Options.packageName");
      }

      PackageInfo pi = new PackageInfo();
      pi.packageName = pkg;
      String versionCode = attr(manifest, "versionCode");
      pi.setLongVersionCode(versionCode == null ? 1 : Long.parseLong(versionCode));
      pi.versionName = attr(manifest, "versionName");

      ApplicationInfo ai = new ApplicationInfo();
      ai.packageName = pkg;
      ai.uid = options.uid;
      ai.enabled = true;
      ai.flags = ApplicationInfo.FLAG_INSTALLED | ApplicationInfo.FLAG_HAS_CODE;
      ai.targetSdkVersion = options.defaultTargetSdk;
      ai.processName = pkg;
      pi.applicationInfo = ai;

      Parsed out = new Parsed(pi);
      List<ActivityInfo> activities = new ArrayList<>();
      List<ActivityInfo> receivers = new ArrayList<>();
      List<ServiceInfo> services = new ArrayList<>();
      List<ProviderInfo> providers = new ArrayList<>();
      List<String> requested = new ArrayList<>();

      for (Element e : children(manifest)) {
        switch (e.getTagName()) {
          case "uses-sdk":
            String min = attr(e, "minSdkVersion");
            String target = attr(e, "targetSdkVersion");
            if (min != null) {
              ai.minSdkVersion = Integer.parseInt(min);
            }
            if (target != null) {
              ai.targetSdkVersion = Integer.parseInt(target);
            }
            break;
          case "permission":
            PermissionInfo perm = new PermissionInfo();
            perm.name = required(e, "name");
            perm.packageName = pkg;
            perm.group = attr(e, "permissionGroup");
            perm.nonLocalizedLabel = attr(e, "label");
            perm.protectionLevel = protectionLevel(attr(e, "protectionLevel"));
            out.permissions.add(perm);
            break;
          case "uses-permission":
          case "uses-permission-sdk-23":
            requested.add(required(e, "name"));
            break;
          case "application":
            readApplication(e, ai, activities, receivers, services, providers, out);
            break;
          default:
            // <queries>, <uses-feature>, <instrumentation>, ...: nothing to install.
            break;
        }
      }
      pi.activities = activities.isEmpty() ? null : activities.toArray(new ActivityInfo[0]);
      pi.receivers = receivers.isEmpty() ? null : receivers.toArray(new ActivityInfo[0]);
      pi.services = services.isEmpty() ? null : services.toArray(new ServiceInfo[0]);
      pi.providers = providers.isEmpty() ? null : providers.toArray(new ProviderInfo[0]);
      pi.permissions =
          out.permissions.isEmpty() ? null : out.permissions.toArray(new PermissionInfo[0]);
      if (!requested.isEmpty()) {
        pi.requestedPermissions = requested.toArray(new String[0]);
        pi.requestedPermissionsFlags = new int[requested.size()];
      }
      return out;
    }

    private void readApplication(
        Element app,
        ApplicationInfo ai,
        List<ActivityInfo> activities,
        List<ActivityInfo> receivers,
        List<ServiceInfo> services,
        List<ProviderInfo> providers,
        Parsed out) {
      String appClass = attr(app, "name");
      ai.className = appClass == null ? null : className(appClass);
      ai.name = ai.className;
      ai.nonLocalizedLabel = attr(app, "label");
      ai.permission = attr(app, "permission");
      if (!bool(app, "enabled", true)) {
        ai.enabled = false;
      }
      String process = attr(app, "process");
      if (process != null) {
        ai.processName = processName(process);
      }
      Bundle appMeta = new Bundle();
      for (Element e : children(app)) {
        switch (e.getTagName()) {
          case "activity":
          case "activity-alias":
            {
              ActivityInfo info = new ActivityInfo();
              List<IntentFilter> filters = component(e, info, ai);
              if (e.getTagName().equals("activity-alias")) {
                info.targetActivity = className(required(e, "targetActivity"));
              }
              info.permission = attr(e, "permission");
              info.exported = bool(e, "exported", !filters.isEmpty());
              activities.add(info);
              out.activityFilters.put(new ComponentName(pkg, info.name), filters);
              break;
            }
          case "receiver":
            {
              ActivityInfo info = new ActivityInfo();
              List<IntentFilter> filters = component(e, info, ai);
              info.permission = attr(e, "permission");
              info.exported = bool(e, "exported", !filters.isEmpty());
              receivers.add(info);
              out.receiverFilters.put(new ComponentName(pkg, info.name), filters);
              break;
            }
          case "service":
            {
              ServiceInfo info = new ServiceInfo();
              List<IntentFilter> filters = component(e, info, ai);
              info.permission = attr(e, "permission");
              info.exported = bool(e, "exported", !filters.isEmpty());
              services.add(info);
              out.serviceFilters.put(new ComponentName(pkg, info.name), filters);
              break;
            }
          case "provider":
            {
              ProviderInfo info = new ProviderInfo();
              component(e, info, ai);
              info.authority = required(e, "authorities");
              info.exported = bool(e, "exported", false);
              String permission = attr(e, "permission");
              String read = attr(e, "readPermission");
              String write = attr(e, "writePermission");
              // As the platform's parser does, an empty permission is none.
              info.readPermission = emptyToNull(read != null ? read : permission);
              info.writePermission = emptyToNull(write != null ? write : permission);
              info.grantUriPermissions = bool(e, "grantUriPermissions", false);
              info.multiprocess = bool(e, "multiprocess", false);
              info.forceUriPermissions = bool(e, "forceUriPermissions", false);
              String initOrder = attr(e, "initOrder");
              info.initOrder = initOrder == null ? 0 : Integer.parseInt(initOrder);
              providers.add(info);
              break;
            }
          case "meta-data":
            putMetaData(appMeta, e);
            break;
          default:
            break;
        }
      }
      if (!appMeta.isEmpty()) {
        ai.metaData = appMeta;
      }
    }

    /** Fills the ComponentInfo fields every component has; returns its intent filters. */
    private List<IntentFilter> component(Element e, ComponentInfo info, ApplicationInfo ai) {
      info.name = className(required(e, "name"));
      info.packageName = pkg;
      info.applicationInfo = ai;
      info.enabled = bool(e, "enabled", true);
      info.directBootAware = bool(e, "directBootAware", false);
      info.nonLocalizedLabel = attr(e, "label");
      String process = attr(e, "process");
      info.processName = process == null ? ai.processName : processName(process);
      List<IntentFilter> filters = new ArrayList<>();
      Bundle meta = new Bundle();
      for (Element c : children(e)) {
        if (c.getTagName().equals("intent-filter")) {
          filters.add(intentFilter(c));
        } else if (c.getTagName().equals("meta-data")) {
          putMetaData(meta, c);
        }
      }
      info.metaData = meta.isEmpty() ? null : meta;
      return filters;
    }

    private IntentFilter intentFilter(Element e) {
      IntentFilter f = new IntentFilter();
      String priority = attr(e, "priority");
      if (priority != null) {
        f.setPriority(Integer.parseInt(priority));
      }
      for (Element c : children(e)) {
        switch (c.getTagName()) {
          case "action":
            f.addAction(required(c, "name"));
            break;
          case "category":
            f.addCategory(required(c, "name"));
            break;
          case "data":
            String scheme = attr(c, "scheme");
            if (scheme != null) {
              f.addDataScheme(scheme);
            }
            String host = attr(c, "host");
            if (host != null) {
              f.addDataAuthority(host, attr(c, "port"));
            }
            String path = attr(c, "path");
            if (path != null) {
              f.addDataPath(path, android.os.PatternMatcher.PATTERN_LITERAL);
            }
            String prefix = attr(c, "pathPrefix");
            if (prefix != null) {
              f.addDataPath(prefix, android.os.PatternMatcher.PATTERN_PREFIX);
            }
            String pattern = attr(c, "pathPattern");
            if (pattern != null) {
              f.addDataPath(pattern, android.os.PatternMatcher.PATTERN_SIMPLE_GLOB);
            }
            String mime = attr(c, "mimeType");
            if (mime != null) {
              try {
                f.addDataType(mime);
              } catch (IntentFilter.MalformedMimeTypeException ex) {
                throw fail("bad mimeType '" + mime + "'");
              }
            }
            break;
          default:
            break;
        }
      }
      return f;
    }

    private void putMetaData(Bundle into, Element e) {
      String name = required(e, "name");
      String value = attr(e, "value");
      String resource = attr(e, "resource");
      if (value == null && resource != null) {
        // As the platform stores it: the resource's id, an int.
        into.putInt(name, resourceId(name, resource));
        return;
      }
      if (value == null) {
        throw fail("<meta-data " + name + "> has neither android:value nor android:resource");
      }
      Object typed = metaDataValue(value);
      if (typed instanceof Integer) {
        into.putInt(name, (Integer) typed);
      } else if (typed instanceof Boolean) {
        into.putBoolean(name, (Boolean) typed);
      } else if (typed instanceof Float) {
        into.putFloat(name, (Float) typed);
      } else {
        into.putString(name, (String) typed);
      }
    }

    /**
     * The id of {@code @[package:]type/name} in the resources of the running app (the bundle's
     * compiled resources, or the framework's for {@code @android:}), as the package parser
     * resolves {@code android:resource}.
     */
    private int resourceId(String metaData, String reference) {
      Matcher m = RESOURCE_REFERENCE.matcher(reference);
      if (!m.matches()) {
        throw fail(
            "<meta-data "
                + metaData
                + "> android:resource=\""
                + reference
                + "\" is not a resource reference (@type/name)");
      }
      String owner = m.group(1) != null ? m.group(1) : pkg;
      int id =
          RuntimeEnvironment.getApplication()
              .getResources()
              .getIdentifier(m.group(3), m.group(2), owner);
      if (id == 0) {
        throw fail(
            "<meta-data "
                + metaData
                + "> android:resource=\""
                + reference
                + "\" names no resource of "
                + owner
                + " (are the app's resources compiled into the bundle?)");
      }
      return id;
    }

    private String className(String name) {
      if (name.startsWith(".")) {
        return pkg + name;
      }
      return name.indexOf('.') < 0 ? pkg + "." + name : name;
    }

    private String processName(String process) {
      return process.startsWith(":") ? pkg + process : process;
    }

    private boolean bool(Element e, String name, boolean dflt) {
      String v = attr(e, name);
      if (v == null) {
        return dflt;
      }
      if (v.equals("true")) {
        return true;
      }
      if (v.equals("false")) {
        return false;
      }
      throw fail("android:" + name + "=\"" + v + "\" is not a boolean");
    }

    private String required(Element e, String name) {
      String v = attr(e, name);
      if (v == null || v.isEmpty()) {
        throw fail("<" + e.getTagName() + "> without android:" + name);
      }
      return v;
    }

    /** An android: attribute with placeholders substituted, or null when absent. */
    private String attr(Element e, String name) {
      if (!e.hasAttributeNS(ANDROID_NS, name)) {
        return null;
      }
      return substitute(e.getAttributeNS(ANDROID_NS, name));
    }

    private static String emptyToNull(String value) {
      return value == null || value.isEmpty() ? null : value;
    }

    /** A non-namespaced attribute (only {@code package}). */
    private String plain(Element e, String name) {
      return e.hasAttribute(name) ? substitute(e.getAttribute(name)) : null;
    }

    private String substitute(String raw) {
      Matcher m = PLACEHOLDER.matcher(raw);
      StringBuilder sb = new StringBuilder();
      while (m.find()) {
        String key = m.group(1);
        String value =
            key.equals("applicationId") && !options.placeholders.containsKey(key)
                ? pkg
                : options.placeholders.get(key);
        if (value == null) {
          throw fail("unresolved manifest placeholder ${" + key + "}");
        }
        m.appendReplacement(sb, Matcher.quoteReplacement(value));
      }
      m.appendTail(sb);
      return sb.toString();
    }

    private IllegalArgumentException fail(String message) {
      return new IllegalArgumentException(source + ": " + message);
    }
  }

  /**
   * Types an {@code android:value} the way aapt/aapt2 compile it and PackageParser reads it back:
   * {@code true}/{@code false} become Boolean; decimal or {@code 0x} hex integers become Integer;
   * colors ({@code #rgb}, {@code #argb}, {@code #rrggbb}, {@code #aarrggbb}) become their Integer
   * ARGB value; decimal floats become Float; everything else stays a String (a leading backslash
   * escape is removed). Resource references ({@code @...}, {@code ?...}) are rejected because there
   * is no resource table here.
   */
  public static Object metaDataValue(String raw) {
    String v = raw.trim();
    if (v.equals("true")) {
      return Boolean.TRUE;
    }
    if (v.equals("false")) {
      return Boolean.FALSE;
    }
    Integer i = parseInt(v);
    if (i != null) {
      return i;
    }
    if (v.matches("#([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")) {
      return color(v.substring(1));
    }
    if (v.matches("[-+]?(\\d+\\.\\d*|\\.\\d+|\\d+)([eE][-+]?\\d+)?[fF]?")) {
      return Float.parseFloat(v);
    }
    if (v.startsWith("@") || v.startsWith("?")) {
      throw new IllegalArgumentException(
          "meta-data value '" + raw + "' is a resource reference; not supported without resources");
    }
    if (raw.startsWith("\\@") || raw.startsWith("\\?") || raw.startsWith("\\#")) {
      return raw.substring(1);
    }
    return raw;
  }

  private static Integer parseInt(String v) {
    try {
      if (v.matches("[-+]?\\d+")) {
        long l = Long.parseLong(v.startsWith("+") ? v.substring(1) : v);
        return l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE ? (int) l : null;
      }
      if (v.matches("0[xX][0-9a-fA-F]{1,8}")) {
        return (int) Long.parseLong(v.substring(2), 16);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    return null;
  }

  private static int color(String hex) {
    if (hex.length() == 3 || hex.length() == 4) {
      StringBuilder sb = new StringBuilder();
      for (char c : hex.toCharArray()) {
        sb.append(c).append(c);
      }
      hex = sb.toString();
    }
    long value = Long.parseLong(hex, 16);
    if (hex.length() == 6) {
      value |= 0xFF000000L;
    }
    return (int) value;
  }

  private static int protectionLevel(String spec) {
    if (spec == null) {
      return PermissionInfo.PROTECTION_NORMAL;
    }
    int level = 0;
    for (String part : spec.split("\\|")) {
      switch (part.trim().toLowerCase(Locale.ROOT)) {
        case "normal":
          level |= PermissionInfo.PROTECTION_NORMAL;
          break;
        case "dangerous":
          level |= PermissionInfo.PROTECTION_DANGEROUS;
          break;
        case "signature":
          level |= PermissionInfo.PROTECTION_SIGNATURE;
          break;
        case "signatureorsystem":
          level |= PermissionInfo.PROTECTION_SIGNATURE | PermissionInfo.PROTECTION_FLAG_PRIVILEGED;
          break;
        case "privileged":
        case "system":
          level |= PermissionInfo.PROTECTION_FLAG_PRIVILEGED;
          break;
        case "development":
          level |= PermissionInfo.PROTECTION_FLAG_DEVELOPMENT;
          break;
        case "appop":
          level |= PermissionInfo.PROTECTION_FLAG_APPOP;
          break;
        case "knownsigner":
          level |= PermissionInfo.PROTECTION_FLAG_KNOWN_SIGNER;
          break;
        default:
          throw new IllegalArgumentException("unknown protectionLevel flag '" + part + "'");
      }
    }
    return level;
  }

  private static List<Element> children(Element parent) {
    List<Element> out = new ArrayList<>();
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n.getNodeType() == Node.ELEMENT_NODE) {
        out.add((Element) n);
      }
    }
    return out;
  }

  private static <T> List<T> nonNull(T[] array) {
    return array == null ? Collections.emptyList() : java.util.Arrays.asList(array);
  }
}
