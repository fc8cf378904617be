/*
 * Licensed under the Apache License, Version 2.0. See LICENSE in the project root.
 */
package dev.permafrost.examples.service.api;

import org.apache.catalina.core.StandardHost;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Puts {@link ProblemErrorReportValve} in place of Tomcat's HTML error report. */
@Configuration(proxyBeanMethods = false)
class TomcatErrors {
  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReports() {
    return factory -> factory.addContextCustomizers(context -> {
      if (context.getParent() instanceof StandardHost host) {
        host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
      }
    });
  }
}
